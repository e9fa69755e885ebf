import type { Entry, ReportChannelName } from '../../domain/entry.js';
import type { QueueDoc } from '../../domain/queue.js';

/** The entry with `key` recorded as said on `channel`. */
export function markReported(q: QueueDoc, entryId: string, channel: ReportChannelName, key: string): QueueDoc {
  const entry = q.entries.find((e) => e.id === entryId);
  if (!entry || entry.reported?.[channel] === key) return q;
  const marked: Entry = { ...entry, reported: { ...entry.reported, [channel]: key } };
  return { ...q, entries: q.entries.map((e) => (e.id === entryId ? marked : e)) };
}
