/**
 * Arrays made by appending to another remember it, so that comparing a document with one it was
 * made from (outbound events, the rows a commit writes) can skip the items they share instead of
 * walking a deep queue item by item on every submit.
 *
 * Arrays appended one after another (each to the latest: a run of submits, a batch of them stored in
 * one commit) form a lineage, in which every array begins with every shorter one. An array knows
 * only its lineage and its length, never other arrays, so a long run of submits keeps nothing old
 * alive. Appending to an array that is not its lineage's latest starts a new lineage with the two of
 * them (the array then leaves its old one). A pair not known this way is simply compared.
 */
interface Lineage {
  /** Length of the latest array of the lineage. */
  tip: number;
}

const lineageOf = new WeakMap<readonly unknown[], { lineage: Lineage; length: number }>();

/** `[...items, ...more]`, remembered as made from `items`. */
export function appended<T>(items: readonly T[], ...more: T[]): T[] {
  // concat copies a long array faster than a spread does.
  const next = items.concat(more);
  let at = lineageOf.get(items);
  if (!at || at.lineage.tip !== at.length) {
    at = { lineage: { tip: items.length }, length: items.length };
    lineageOf.set(items, at);
  }
  at.lineage.tip = next.length;
  lineageOf.set(next, { lineage: at.lineage, length: next.length });
  return next;
}

/** How many leading items `next` shares (the same objects) with `prev`, when known without looking: `prev.length` or null. */
export function knownSharedPrefix<T>(prev: readonly T[], next: readonly T[]): number | null {
  if (next === prev) return prev.length;
  const p = lineageOf.get(prev);
  const n = lineageOf.get(next);
  return p && n && p.lineage === n.lineage && p.length <= n.length ? prev.length : null;
}
