import type { Entry } from '../domain/entry.js';

/** Per entry, what was last reported for it: the entry object and the key of what was said. */
export type ReportedByEntry = Map<string, { entry: Entry; key: string }>;

/**
 * The entries whose report (status, comment) must be said again: those whose key changed since the
 * last report. Records the new keys. Documents share unchanged entries, so the same object cannot
 * have changed.
 */
export function entriesToReport(reported: ReportedByEntry, entries: readonly Entry[], keyOf: (entry: Entry) => string): Entry[] {
  const out: Entry[] = [];
  for (const entry of entries) {
    const last = reported.get(entry.id);
    if (last?.entry === entry) continue;
    const key = keyOf(entry);
    reported.set(entry.id, { entry, key });
    if (last?.key !== key) out.push(entry);
  }
  return out;
}
