import { activeFreeze, describeHold, type Freeze } from '../domain/merge-hold.js';
import { windowStatus } from '../domain/merge-window.js';
import type { QueueDoc } from '../domain/queue.js';

/** What getQueue says of a queue's freeze and merge windows at `now`, beside its `state`. */
export interface MergeHoldRecord {
  freeze: Freeze | null;
  mergeWindow: { open: boolean; nextChangeAt: string | null } | null;
}

export function mergeHoldRecord(queue: Pick<QueueDoc, 'freeze' | 'settings'>, now: Date): MergeHoldRecord {
  const freeze = activeFreeze(queue, now);
  const windows = queue.settings.mergeWindows;
  const status = windows ? windowStatus(windows, now) : null;
  return {
    freeze: freeze ? { ...freeze, allowPullRequests: [...freeze.allowPullRequests] } : null,
    mergeWindow: status ? { open: status.open, nextChangeAt: status.nextChangeAt?.toISOString() ?? null } : null,
  };
}

/** "frozen until …: reason" or "outside merge window until …"; null when the queue may merge. */
export function describeQueueHold(record: MergeHoldRecord): string | null {
  const date = (iso: string | null) => (iso === null ? null : new Date(iso));
  if (record.freeze) return describeHold({ kind: 'freeze', freeze: record.freeze }, date(record.freeze.endsAt));
  if (record.mergeWindow && !record.mergeWindow.open) return describeHold({ kind: 'window' }, date(record.mergeWindow.nextChangeAt));
  return null;
}
