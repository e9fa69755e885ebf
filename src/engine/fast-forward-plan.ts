import type { Entry } from '../domain/entry.js';
import type { QueueDoc } from '../domain/queue.js';
import type { TestRun } from '../domain/run.js';
import { lineageOf } from '../planner/index.js';

/** One fast-forward of the target branch: to `run`'s tested commit, merging `entries` (due, in order). */
export interface FastForwardPlan {
  run: TestRun & { testBranchSha: string };
  entries: Entry[];
}

/**
 * The furthest passed run that one fast-forward can merge (github.md, "Merging"): its tested commit
 * descends from the target head as the queue knows it, and what it holds beyond what has landed is
 * exactly the first due merges, in order — so the target then holds exactly the commit CI passed, and
 * every PR of it. Null when no run qualifies (then PRs merge one by one through the merge API, and a
 * native stack's members through the host's stack merge).
 */
export function fastForwardPlan(doc: QueueDoc, due: readonly Entry[]): FastForwardPlan | null {
  const head = lineageOf(doc).at(-1)?.sha;
  if (head === undefined || due.length === 0) return null;
  const runs = new Map(doc.runs.map((r) => [r.id, r]));
  const byCommit = new Map(doc.runs.flatMap((r) => (r.testBranchSha ? [[r.testBranchSha, r] as const] : [])));
  const proofs = [...new Set(due.flatMap((e) => (e.mergeIntent?.runId ? [e.mergeIntent.runId] : [])))];
  const merged = new Set(doc.entries.filter((e) => e.state === 'MERGED').map((e) => e.id));
  let best: FastForwardPlan | null = null;
  for (const id of proofs) {
    const run = runs.get(id);
    if (!run?.testBranchSha || run.status !== 'passed') continue;
    const unlanded = run.prs.filter((p) => !merged.has(p.entryId));
    if (unlanded.length > due.length || (best && unlanded.length <= best.entries.length)) continue;
    if (!unlanded.every((p, i) => due[i]!.id === p.entryId && due[i]!.prSha === p.prSha)) continue;
    // A native stack's members above the bottom are based on the member below, and GitHub merges them
    // only through its stack merge: a fast-forward would land their content and leave them open.
    if (due.slice(0, unlanded.length).some((e) => e.stack?.kind === 'native')) continue;
    if (!descendsFrom(run as FastForwardPlan['run'], head, byCommit)) continue;
    best = { run: run as FastForwardPlan['run'], entries: due.slice(0, unlanded.length) };
  }
  return best;
}

/** Whether the run's commit is `head` or was built (through earlier runs' commits) on top of it. */
function descendsFrom(run: FastForwardPlan['run'], head: string, byCommit: ReadonlyMap<string, TestRun>): boolean {
  const seen = new Set<string>();
  let at: TestRun | undefined = run;
  let sha: string | null | undefined = run.testBranchSha;
  while (sha && !seen.has(sha)) {
    if (sha === head) return true;
    seen.add(sha);
    sha = at?.startSha;
    at = sha ? byCommit.get(sha) : undefined;
  }
  return false;
}
