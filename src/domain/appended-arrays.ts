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

/**
 * Appends made while a change of a batch runs (see `appendingInPlace`): an array made by such an
 * append belongs to the batch, which nothing else has seen yet, so the batch's later appends to it
 * push in place instead of copying it again. A batch of k submits to a queue of n PRs then copies
 * n entries once, not k times (past about 16,000 entries a copy leaves V8's regular heap and costs
 * 0.1-0.25 ms). An append in place also changes the document the change was given, so a change
 * that appends must answer with the document it built from the append (QueueDocWriter applies the
 * batch again with copies when a change that appended throws, writes nothing, or answers without
 * the array).
 */
export class AppendScope {
  readonly owned = new WeakSet<readonly unknown[]>();
  /** The arrays appended to in place since the batch last cleared it. */
  readonly inPlace = new Set<readonly unknown[]>();
}

let scope: AppendScope | null = null;

/** Runs `fn` with `batch` as the append scope while it runs synchronously (not after its first await). */
export function appendingInPlace<T>(batch: AppendScope, fn: () => T): T {
  const outer = scope;
  scope = batch;
  try {
    return fn();
  } finally {
    scope = outer;
  }
}

/** `[...items, ...more]`, remembered as made from `items`; in place when `items` belongs to the current scope. */
export function appended<T>(items: readonly T[], ...more: T[]): T[] {
  let at = lineageOf.get(items);
  if (scope?.owned.has(items) && at && at.lineage.tip === at.length && !Object.isFrozen(items)) {
    const own = items as T[];
    for (const x of more) own.push(x);
    at.length = own.length;
    at.lineage.tip = own.length;
    scope.inPlace.add(own);
    return own;
  }
  // concat copies a long array faster than a spread does.
  const next = items.concat(more);
  if (!at || at.lineage.tip !== at.length) {
    at = { lineage: { tip: items.length }, length: items.length };
    lineageOf.set(items, at);
  }
  at.lineage.tip = next.length;
  lineageOf.set(next, { lineage: at.lineage, length: next.length });
  scope?.owned.add(next);
  return next;
}

/** How many leading items `next` shares (the same objects) with `prev`, when known without looking: `prev.length` or null. */
export function knownSharedPrefix<T>(prev: readonly T[], next: readonly T[]): number | null {
  if (next === prev) return prev.length;
  const p = lineageOf.get(prev);
  const n = lineageOf.get(next);
  return p && n && p.lineage === n.lineage && p.length <= n.length ? prev.length : null;
}
