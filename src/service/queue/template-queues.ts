import type { Clock } from '../../domain/clock.js';
import type { Org } from '../../domain/org.js';
import { isManagedByFile } from '../../domain/queue-template.js';
import type { RepoRef } from '../../domain/repo.js';
import { queueEvents } from '../../events/queue-events.js';
import { ConflictError } from '../../store/errors.js';
import type { QueueStore } from '../../store/store.js';
import type { QueueTemplateStore } from '../../store/template-store.js';
import { templateFor } from './branch-pattern.js';
import { newQueueDoc, type QueueDoc } from '../../domain/queue.js';
import { defaultSettings } from '../../domain/settings.js';

/**
 * The queue of a branch that has none yet, created from the repository's template whose pattern the
 * branch matches (queue-patterns.md): at the first submit of a PR to it, through any door.
 */
export class TemplateQueues {
  constructor(
    private readonly deps: { store: { queues: QueueStore; templates: QueueTemplateStore }; clock: Clock; newId: () => string; notify: (queueId: string) => void },
  ) {}

  /** The branch's queue: the stored one, else one made from a matching template, else null. */
  async queueFor(org: Org, repo: RepoRef, key: { repoKey: string; branch: string }): Promise<QueueDoc | null> {
    const { store, clock } = this.deps;
    const existing = await store.queues.getQueue(key.repoKey, key.branch);
    if (existing) return existing;
    const template = templateFor(await store.templates.listTemplates({ repoKey: key.repoKey }), key.branch);
    if (!template) return null;
    const now = clock.now().toISOString();
    const queue = newQueueDoc({
      id: this.deps.newId(),
      orgId: org.id,
      repo,
      branch: key.branch,
      settings: defaultSettings(template.settings),
      at: now,
      version: 0,
      createdFrom: { pattern: template.pattern },
      // A queue made from a template the file manages is managed by the file too.
      ...(isManagedByFile(template.settingsSource) ? { settingsSource: template.settingsSource } : {}),
    });
    try {
      await store.queues.insertQueue(queue, queueEvents(null, queue, now));
      this.deps.notify(queue.id);
    } catch (err) {
      // Two first submits at once: the other one made it.
      if (!(err instanceof ConflictError)) throw err;
    }
    return store.queues.getQueue(key.repoKey, key.branch);
  }
}
