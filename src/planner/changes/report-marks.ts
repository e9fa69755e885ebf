import type { Entry, ReportChannelName } from '../../domain/entry.js';
import type { QueueDoc } from '../../domain/queue.js';
import { isActive } from '../../domain/states.js';

/**
 * What was said on a PR is kept on its entry per channel (`entry.reported`): the key said, or `~key`
 * while it is on its way (marked before the write, so that a restart, or the entry ending meanwhile,
 * knows something may have been said). The keys of an ended entry begin with its state.
 */
const ON_ITS_WAY = '~';

/** The entry with `key` recorded as said on `channel`. */
export function markReported(q: QueueDoc, entryId: string, channel: ReportChannelName, key: string): QueueDoc {
  const entry = q.entries.find((e) => e.id === entryId);
  if (!entry || entry.reported?.[channel] === key) return q;
  const marked: Entry = { ...entry, reported: { ...entry.reported, [channel]: key } };
  return { ...q, entries: q.entries.map((e) => (e.id === entryId ? marked : e)) };
}

/**
 * Before the first write on `channel` about an entry in the queue: marks `key` as on its way. `write`
 * is false when the entry has ended (or gone) meanwhile: it is not told a state it left.
 */
export function markReporting(q: QueueDoc, entryId: string, channel: ReportChannelName, key: string): { queue: QueueDoc; write: boolean } {
  const entry = q.entries.find((e) => e.id === entryId);
  if (!entry || !isActive(entry.state)) return { queue: q, write: false };
  if (entry.reported?.[channel] !== undefined) return { queue: q, write: true };
  return { queue: markReported(q, entryId, channel, `${ON_ITS_WAY}${key}`), write: true };
}

/** Whether an ended entry still owes its PR the final word on `channel`: something else was (or may have been) said last. */
export function owesFinalReport(entry: Entry, channel: ReportChannelName): boolean {
  const said = entry.reported?.[channel];
  return !isActive(entry.state) && said !== undefined && !said.startsWith(entry.state);
}

/** Whether an ended entry still owes its PR the final word on some channel: it is kept out of the archive until said. */
export function owesAnyFinalReport(entry: Entry): boolean {
  return entry.reported !== undefined && (Object.keys(entry.reported) as ReportChannelName[]).some((channel) => owesFinalReport(entry, channel));
}
