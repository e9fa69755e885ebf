import type { Entry } from '../entry.js';
import type { QueueDoc } from '../queue.js';
import type { TestRun } from '../run.js';
import { MAX_EVIDENCE_TESTS } from './verdict.js';

/**
 * Whom a bystander paid for: in the newest run it was in that did not pass, the other PRs the queue
 * blames — named by bisection first, then failed, then suspects, then removed otherwise. Empty when
 * the document holds none of them any more.
 */
export function findCulprits(queue: QueueDoc, entry: Entry, held: readonly TestRun[]): { prNumber: number; entryId: string }[] {
  const byId = entriesById(queue.entries);
  for (const run of held) {
    if (run.status === 'passed') continue;
    let best: { rank: number; found: Entry[] } = { rank: Number.POSITIVE_INFINITY, found: [] };
    for (const p of run.prs) {
      if (p.entryId === entry.id) continue;
      const other = byId.get(p.entryId);
      const rank = other ? blameRank(other) : null;
      if (rank === null) continue;
      if (rank < best.rank) best = { rank, found: [other!] };
      else if (rank === best.rank) best.found.push(other!);
    }
    if (best.found.length > 0) return best.found.slice(0, MAX_EVIDENCE_TESTS).map((e) => ({ prNumber: e.prNumber, entryId: e.id }));
  }
  return [];
}

/**
 * One index per entries array: a commit that restarts many PRs gives each its verdict from the same
 * document. An array appended to in place (appended-arrays.ts) is indexed again.
 */
const indexes = new WeakMap<readonly Entry[], Map<string, Entry>>();

function entriesById(entries: readonly Entry[]): Map<string, Entry> {
  let index = indexes.get(entries);
  if (!index || index.size !== entries.length) indexes.set(entries, (index = new Map(entries.map((e) => [e.id, e]))));
  return index;
}

/** 0: named by bisection; 1: failed; 2: a suspect; 3: removed otherwise; null: not to blame. */
function blameRank(e: Entry): number | null {
  if (e.state === 'MERGED' || e.state === 'TESTS_PASSED') return null;
  if ((e.state === 'PENDING_FAILURE' || e.state === 'FAILED') && e.history.some((t) => t.reason.code === 'bisection_culprit')) return 0;
  if (e.state === 'FAILED') return 1;
  if (e.state === 'PENDING_FAILURE') return 2;
  if (e.state === 'CANCELLED') return 3;
  return null;
}
