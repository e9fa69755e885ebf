import type { Clock } from '../../domain/clock.js';
import type { Freeze } from '../../domain/merge-hold.js';
import type { Org } from '../../domain/org.js';
import type { QueueDoc } from '../../domain/queue.js';
import { repoKey } from '../../domain/repo.js';
import { ServiceError } from '../errors.js';
import type { QueueRefInput } from './queue-inputs.js';
import type { QueueDocWriter } from './queue-doc-writer.js';
import type { QueueRecord } from '../../records/queue-record.js';
import { assertOwnsRepo } from '../access/tenancy.js';

export interface FreezeQueueInput extends QueueRefInput {
  reason: string;
  /** ISO 8601; absent: until unfrozen. */
  endsAt?: string;
  allowPullRequests?: number[];
}

interface QueueFreezesDeps {
  writer: QueueDocWriter;
  clock: Clock;
  /** Reconciles the queue: merges held back may go now. */
  notify(queueId: string): void;
  record(queue: QueueDoc): Promise<QueueRecord>;
}

/**
 * freezeQueue and unfreezeQueue (docs/queue-policies.md): the freeze is stored beside the queue's
 * state; the planner holds merges while it lasts and lifts it at its `endsAt`.
 */
export class QueueFreezes {
  constructor(private readonly deps: QueueFreezesDeps) {}

  /** Freezes the queue now (a frozen queue gets the new freeze); `by`: who asks. */
  async freeze(org: Org, input: FreezeQueueInput, by: string): Promise<QueueRecord> {
    assertOwnsRepo(org, input.repo);
    const now = this.deps.clock.now();
    const endsAt = input.endsAt === undefined ? null : new Date(input.endsAt);
    if (endsAt && endsAt.getTime() <= now.getTime()) {
      throw new ServiceError(400, 'invalid_request', 'Invalid request', 'endsAt: must be in the future', [{ path: 'endsAt', message: 'must be in the future' }]);
    }
    const freeze: Freeze = {
      startedAt: now.toISOString(),
      endsAt: endsAt?.toISOString() ?? null,
      reason: input.reason,
      by,
      allowPullRequests: [...new Set(input.allowPullRequests ?? [])],
    };
    return this.write(input, (q) => ({ ...q, freeze, updatedAt: now.toISOString() }));
  }

  /** Lifts the freeze; a queue that is not frozen stays as it is. */
  async unfreeze(org: Org, input: QueueRefInput): Promise<QueueRecord> {
    assertOwnsRepo(org, input.repo);
    const now = this.deps.clock.now().toISOString();
    return this.write(input, (q) => (q.freeze ? { ...q, freeze: null, updatedAt: now } : q));
  }

  private async write(input: QueueRefInput, change: (q: QueueDoc) => QueueDoc): Promise<QueueRecord> {
    const key = { repoKey: repoKey(input.repo), branch: input.targetBranch };
    const { queue, changed } = await this.deps.writer.update(key, (current) => {
      const next = change(current);
      return next === current ? { unchanged: true, result: null } : { queue: next, result: null };
    });
    if (changed) this.deps.notify(queue.id);
    return this.deps.record(queue);
  }
}
