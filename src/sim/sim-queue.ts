import { derivedId } from '../domain/ids.js';
import type { QueueDoc } from '../domain/queue.js';
import { repoKey, type RepoRef } from '../domain/repo.js';
import type { QueueSettings } from '../domain/settings.js';

/** A new, empty, running queue document for simulations and engine tests. */
export function newSimQueue(repo: RepoRef, branch: string, settings: QueueSettings, now: Date): QueueDoc {
  const at = now.toISOString();
  return {
    id: derivedId('sim-queue', repoKey(repo), branch),
    orgId: 'sim',
    repo,
    repoKey: repoKey(repo),
    branch,
    state: 'running',
    switching: null,
    settings,
    createdAt: at,
    updatedAt: at,
    version: 1,
    nextSeq: 1,
    targetSha: null,
    entries: [],
    units: [],
    runs: [],
  };
}
