import type { QueueDoc } from '../domain/queue.js';
import type { TestRun } from '../domain/run.js';
import { lineageIndex, lineageOf } from '../planner/index.js';

export interface TestBranchStart {
  /** The commit to build on: the test branch head of an earlier run. */
  sha: string;
  /** The target head that commit amounts to (its base plus the queue's merges since). */
  baseSha: string;
  /** How many of the new run's PRs it already holds. */
  prCount: number;
}

/**
 * Where a new run's test branch can start so that building it costs the fewest GitHub writes: the
 * branch of an earlier run whose content is a prefix of this run's. That commit is the earlier run's
 * base plus its PRs. It stands for the current target head plus its unmerged PRs when the queue's
 * merges since that base are exactly its leading PRs, in order; then the new run needs only merges
 * of the PRs after them. Otherwise the build starts on the target head as the queue knows it (not as
 * a read may show it: a read lagging behind the queue's own merge would leave that merge out). Null
 * while the head is unknown: the host then reads it.
 */
export function testBranchStart(queue: QueueDoc, run: TestRun): TestBranchStart | null {
  const lineage = lineageOf(queue);
  const head = lineage.at(-1)?.sha;
  if (head === undefined) return null;
  const merged = new Set(queue.entries.filter((e) => e.state === 'MERGED').map((e) => e.id));
  let best: TestBranchStart = { sha: head, baseSha: head, prCount: 0 };
  for (const earlier of queue.runs) {
    if (earlier.id === run.id) continue;
    if (!earlier.testBranchSha || earlier.baseSha === null || earlier.conflictEntryId !== null) continue;
    const at = lineageIndex(queue, earlier.baseSha);
    if (at < 0) continue;
    const landed = lineage.length - 1 - at;
    if (!earlier.prs.slice(0, landed).every((p) => merged.has(p.entryId))) continue;
    const rest = earlier.prs.slice(landed);
    if (rest.length === 0 || rest.length >= run.prs.length || rest.some((p) => merged.has(p.entryId))) continue;
    if (!rest.every((p, i) => run.prs[i]!.entryId === p.entryId && run.prs[i]!.prSha === p.prSha)) continue;
    if (rest.length > best.prCount) best = { sha: earlier.testBranchSha, baseSha: head, prCount: rest.length };
  }
  return best;
}
