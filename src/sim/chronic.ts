import { initialReadiness, type Entry } from '../domain/entry.js';
import { derivedId } from '../domain/ids.js';
import { resolvePriority } from '../domain/priority.js';
import { repoKey, type RepoRef } from '../domain/repo.js';
import { isActive } from '../domain/states.js';
import type { SandboxGitHost } from '../githost/sandbox/sandbox-host.js';
import type { SubmitInput } from '../planner/index.js';
import type { SimPr } from './workload.js';

/**
 * The storm scenario's chronically failing heads (benchmarks.md, "Storms"): a bad PR that a bot (a
 * coding agent retrying its change) submits again as urgent each time it leaves the queue, up to
 * `resubmits` times — urgent, so it goes back to the head, and every run behind it holds it again.
 */
export class ChronicResubmits {
  private readonly left = new Map<number, number>();
  private readonly attempts = new Map<number, number>();

  constructor(prs: readonly SimPr[], resubmits: number) {
    for (const pr of prs) if (pr.chronic) this.left.set(pr.index + 1, resubmits);
  }

  /** The submissions due now: chronic PRs that ended (not merged) with resubmits left. */
  due(repo: RepoRef, sandbox: SandboxGitHost, entries: readonly Entry[], arrived: (prNumber: number) => boolean): SubmitInput[] {
    const out: SubmitInput[] = [];
    for (const [prNumber, left] of this.left) {
      if (left === 0 || !arrived(prNumber)) continue;
      // Still queued; an ended entry may already be archived, so only an active one counts.
      if (entries.some((e) => e.prNumber === prNumber && isActive(e.state))) continue;
      const opened = sandbox.pullRequest(repo, prNumber);
      if (!opened || opened.state !== 'open') continue;
      const attempt = (this.attempts.get(prNumber) ?? 0) + 1;
      this.attempts.set(prNumber, attempt);
      this.left.set(prNumber, left - 1);
      out.push({
        entryId: derivedId('sim-entry', repoKey(repo), prNumber, 'again', attempt),
        prNumber,
        prTitle: opened.title,
        prSha: opened.headSha,
        prBaseBranch: opened.baseBranch,
        prAuthor: opened.author,
        priority: resolvePriority('urgent'),
        noBatch: null,
        readiness: initialReadiness(),
      });
    }
    return out;
  }
}
