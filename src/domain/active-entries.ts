import { appended } from './appended-arrays.js';
import type { Entry } from './entry.js';
import { isActive } from './states.js';

/**
 * A PR's active entry, found through an index of an entries array instead of a scan: submit, cancel
 * and the engine's facts look a PR up several times per change, and a scan of a deep queue each time
 * was the largest cost of a submit.
 *
 * Entries arrays are not changed in place (documents change by copying what changes), except by an
 * append within a batch (appended-arrays.ts), which goes through `appendEntry`; so an index holds
 * for its array. An index is built on the first lookup in an array; an array made by appending one
 * entry takes its parent's index over (`appendEntry`), so a run of submits does not rebuild it each
 * time.
 */
const byEntries = new WeakMap<readonly Entry[], Map<number, Entry>>();

export function activeEntryOf(entries: readonly Entry[], prNumber: number): Entry | undefined {
  return indexOf(entries).get(prNumber);
}

/** `[...entries, entry]`, with the index of `entries` moved to it when there is one. */
export function appendEntry(entries: readonly Entry[], entry: Entry): Entry[] {
  const next = appended(entries, entry);
  const index = byEntries.get(entries);
  if (index && !(isActive(entry.state) && index.has(entry.prNumber))) {
    // Moved, not copied: `entries` builds a new index if it is ever looked at again.
    byEntries.delete(entries);
    if (isActive(entry.state)) index.set(entry.prNumber, entry);
    byEntries.set(next, index);
  }
  return next;
}

function indexOf(entries: readonly Entry[]): Map<number, Entry> {
  let index = byEntries.get(entries);
  if (!index) {
    index = new Map();
    for (const e of entries) if (isActive(e.state) && !index.has(e.prNumber)) index.set(e.prNumber, e);
    byEntries.set(entries, index);
  }
  return index;
}
