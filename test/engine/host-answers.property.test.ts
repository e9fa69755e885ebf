import fc from 'fast-check';
import type { GitHost, TestBranchSpec } from '../../src/githost/githost.js';
import { MAX_BASE_MOVES, MAX_RESTARTS } from '../../src/planner/phases/restart-loop.js';
import type { QueueDoc } from '../../src/domain/queue.js';
import type { Engine } from '../../src/engine/engine.js';
import { harness, repo } from './harness.js';

/**
 * Whatever the git host answers when a test branch is built — the base it was asked for, an older
 * head of the target, a head nobody made, the same commit as an earlier build — and whatever results
 * it reports for older commits, the CI runs started for each PR stay bounded and the queue settles:
 * no answer spins the engine (issue 39).
 */
type BaseAnswer = 'honest' | 'initial' | 'unknown';
interface Answer {
  base: BaseAnswer;
  /** Report a result on an earlier build's commit after this build. */
  staleResult: 'none' | 'success' | 'failure';
}

const answer: fc.Arbitrary<Answer> = fc.record({
  base: fc.constantFrom<BaseAnswer>('honest', 'honest', 'initial', 'unknown'),
  staleResult: fc.constantFrom('none', 'success', 'failure'),
});

/**
 * At most two holds (the second waits for a person), each after at most MAX_BASE_MOVES + 1 runs (the
 * slow loop; the fast one holds sooner), and the honest run that ends it.
 */
const RUNS_PER_PR_BOUND = 2 * (Math.max(MAX_RESTARTS, MAX_BASE_MOVES) + 1) + 1;

describe('engine: no git host answer spins the queue', () => {
  it('keeps the CI runs of every PR bounded and settles', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(answer, { minLength: 1, maxLength: 12 }), async (answers) => {
        let calls = 0;
        let unknown = 0;
        const built: string[] = [];
        const runsPerPr = new Map<number, number>();
        let initialHead = '';
        let engine: Engine | null = null;
        let doc: (() => Promise<QueueDoc>) | null = null;
        const h = await harness({
          settings: { concurrency: 2, mergeMethod: 'merge_commit' },
          ci: { duration: { kind: 'fixed', minutes: 2 } },
          wrapGitHost: (g): GitHost =>
            Object.assign(Object.create(g) as GitHost, {
              createTestBranch: async (r: typeof repo, spec: TestBranchSpec) => {
                const result = await g.createTestBranch(r, spec);
                const a = answers[calls++ % answers.length]!;
                // The run's own PR is the last one (no batching here); those before it are the PRs ahead.
                const own = spec.prs.at(-1)!.number;
                runsPerPr.set(own, (runsPerPr.get(own) ?? 0) + 1);
                if (!result.ok) return result;
                const baseSha = a.base === 'initial' ? initialHead : a.base === 'unknown' ? `feed${(unknown++).toString(16).padStart(36, '0')}` : result.baseSha;
                built.push(result.sha);
                if (a.staleResult !== 'none' && engine && doc) {
                  // A result for an older run: one whose commit no run in flight tests any more.
                  const live = new Set((await doc()).runs.filter((run) => run.status === 'creating' || run.status === 'pending').map((run) => run.testBranchSha));
                  const stale = built.slice(0, -1).find((sha) => !live.has(sha));
                  if (stale) void engine.recordStatuses(r, stale, [{ context: 'ci', state: a.staleResult, url: null }]).catch(() => undefined);
                }
                const { startSha: _ignored, ...rest } = result;
                return { ...rest, baseSha };
              },
            }),
        });
        engine = h.engine;
        doc = () => h.doc();
        const prs = [await h.submit()];
        initialHead = (await h.sandbox.getBranchHead(repo, 'main'))!;
        prs.push(await h.submit(), await h.submit());
        await h.advance(60);
        await h.settle();
        for (const n of prs) expect(runsPerPr.get(n) ?? 0).toBeLessThanOrEqual(RUNS_PER_PR_BOUND);
        // Nothing is left spinning: an hour later no PR has been built again.
        const before = calls;
        await h.advance(60);
        expect(calls - before).toBeLessThanOrEqual(prs.length);
        await h.engine.stop();
      }),
      { numRuns: 20 },
    );
  });
});
