import { derivedId } from '../domain/ids.js';
import { newQueueDoc, type QueueDoc } from '../domain/queue.js';
import { repoKey, type RepoRef } from '../domain/repo.js';
import type { QueueSettings } from '../domain/settings.js';

/** A new, empty, running queue document for simulations and engine tests. */
export function newSimQueue(repo: RepoRef, branch: string, settings: QueueSettings, now: Date): QueueDoc {
  const at = now.toISOString();
  return newQueueDoc({ id: derivedId('sim-queue', repoKey(repo), branch), orgId: 'sim', repo, branch, settings, at });
}
