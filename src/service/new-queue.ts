import type { Org } from '../domain/org.js';
import type { QueueDoc } from '../domain/queue.js';
import { repoKey, type RepoRef } from '../domain/repo.js';
import { defaultSettings } from '../domain/settings.js';
import type { SettableQueueState } from '../domain/states.js';
import type { QueueSettingsPatch } from './queue-inputs.js';

export interface NewQueue {
  id: string;
  org: Org;
  repo: RepoRef;
  branch: string;
  state?: SettableQueueState;
  /** The settings given; the others take their defaults. */
  settings: QueueSettingsPatch;
  now: string;
  createdFrom?: { pattern: string };
  settingsSource?: string;
}

/** The document of a new, empty queue (createQueue, a template's first submit, `.github/mergeq.yml`). */
export function newQueueDoc(q: NewQueue): QueueDoc {
  return {
    id: q.id,
    orgId: q.org.id,
    repo: { host: q.repo.host, owner: q.repo.owner, name: q.repo.name },
    repoKey: repoKey(q.repo),
    branch: q.branch,
    state: q.state ?? 'running',
    switching: null,
    settings: defaultSettings(q.settings),
    createdAt: q.now,
    updatedAt: q.now,
    version: 0,
    nextSeq: 1,
    targetSha: null,
    entries: [],
    units: [],
    runs: [],
    ...(q.createdFrom ? { createdFrom: { ...q.createdFrom } } : {}),
    ...(q.settingsSource ? { settingsSource: q.settingsSource } : {}),
  };
}
