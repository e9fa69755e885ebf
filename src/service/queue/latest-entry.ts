import { activeEntryOf } from '../../domain/active-entries.js';
import type { Entry } from '../../domain/entry.js';
import type { QueueDoc } from '../../domain/queue.js';
import type { QueueStore } from '../../store/store.js';

/** The PR's latest entry: the active one, else the most recent ended one (in the document or archived). */
export async function latestEntryOf(store: Pick<QueueStore, 'latestArchivedEntry'>, queue: QueueDoc, prNumber: number): Promise<Entry | null> {
  const active = activeEntryOf(queue.entries, prNumber);
  if (active) return active;
  const inDoc = queue.entries.filter((e) => e.prNumber === prNumber).sort((a, b) => b.seq - a.seq)[0];
  const archived = await store.latestArchivedEntry(queue.id, prNumber);
  if (inDoc && archived) return inDoc.seq >= archived.seq ? inDoc : archived;
  return inDoc ?? archived ?? null;
}
