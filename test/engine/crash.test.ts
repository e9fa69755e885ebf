import type { GitHost } from '../../src/githost/githost.js';
import type { Store } from '../../src/store/store.js';
import { mapRoles } from '../store/map-roles.js';
import { harness, repo, MIN } from './harness.js';

class SimulatedCrash extends Error {
  constructor() {
    super('simulated crash');
  }
}

const GIT_HOST_EFFECTS = new Set(['createTestBranch', 'deleteBranch', 'mergePullRequest']);
// The queue's commits and its lease: a process that dies holding the lease holds it until it runs out.
const STORE_EFFECTS = new Set(['commitQueue', 'takeLease', 'releaseLease']);

/**
 * Wraps the store and git host of the first engine so that its N-th side-effect call crashes the
 * process: the call happens ('after') or not ('before'), then that call and every later call of the
 * dead process throw, so nothing it does afterwards reaches the outside world.
 */
function crashAt(n: number, mode: 'before' | 'after') {
  let calls = 0;
  let dead = false;
  const wrap = <T extends object>(target: T, effects: Set<string>): T =>
    new Proxy(target, {
      get(obj, prop, receiver) {
        const value = Reflect.get(obj, prop, receiver) as unknown;
        if (typeof value !== 'function') return value;
        return async (...args: unknown[]) => {
          if (dead) throw new SimulatedCrash();
          if (effects.has(String(prop)) && ++calls === n) {
            dead = true;
            if (mode === 'after') await (value as (...a: unknown[]) => Promise<unknown>).apply(obj, args);
            throw new SimulatedCrash();
          }
          return (value as (...a: unknown[]) => Promise<unknown>).apply(obj, args);
        };
      },
    });
  return {
    wrapStore: (s: Store) => mapRoles(s, (port) => wrap(port, STORE_EFFECTS)),
    wrapGitHost: (g: GitHost) => wrap(g, GIT_HOST_EFFECTS),
    calls: () => calls,
    crashed: () => dead,
  };
}

/** A few PRs, one bad, two runs in flight at a time, reconciled by a first engine that may crash. */
async function runScenario(crashN: number, mode: 'before' | 'after', settings: { createPrsForTestingBranches?: boolean } = {}) {
  const crash = crashAt(crashN, mode);
  const h = await harness({ settings: { concurrency: 2, flakeRetries: 1, ...settings }, wrapStore: crash.wrapStore, wrapGitHost: crash.wrapGitHost });
  const prs: number[] = [];
  for (const bad of [false, true, false, false]) {
    prs.push(await h.submit({ bad }));
    await h.advance(3);
  }
  await h.advance(120);
  const crashed = crash.crashed();
  // A new process (fresh memory, same store and sandbox) polls and reconciles to the end.
  const engine = h.restartEngine({ pollIntervalMs: 5 * MIN });
  engine.start();
  await h.advance(240);
  await engine.stop();
  return { h, prs, crashed, calls: crash.calls() };
}

describe('engine: a crash at any side effect is finished by the next engine', () => {
  it('reconciles the scenario to the end for every crash point', async () => {
    const clean = await runScenario(0, 'before');
    const total = clean.calls;
    expect(total).toBeGreaterThan(10);
    expect(await clean.h.states(...clean.prs)).toEqual(['MERGED', 'FAILED', 'MERGED', 'MERGED']);

    for (const mode of ['before', 'after'] as const) {
      for (let n = 1; n <= total; n++) {
        const { h, prs, crashed } = await runScenario(n, mode);
        const where = `crash ${mode} side effect ${n} of ${total}`;
        expect([where, crashed]).toEqual([where, true]);
        // No lost PR: each ended, the way it would have without the crash.
        expect([where, await h.states(...prs)]).toEqual([where, ['MERGED', 'FAILED', 'MERGED', 'MERGED']]);
        // Nothing merged twice, nor asked to merge once merged.
        expect([where, prs.map((p) => h.sandbox.mergeCount(repo, p))]).toEqual([where, [1, 0, 1, 1]]);
        expect([where, h.sandbox.stats.mergeCallsOnMergedPrs]).toEqual([where, 0]);
        expect([where, h.mergeOrder()]).toEqual([where, [prs[0], prs[2], prs[3]]]);
        // No orphaned run: every test branch deleted, no run left in flight.
        expect([where, h.sandbox.liveTestBranches(repo)]).toEqual([where, []]);
        const live = (await h.doc()).runs.filter((r) => r.status === 'creating' || r.status === 'pending');
        expect([where, live]).toEqual([where, []]);
      }
    }
  });

  it('with createPrsForTestingBranches, a test branch created again after a crash opens no second draft PR', async () => {
    const total = (await runScenario(0, 'before', { createPrsForTestingBranches: true })).calls;
    for (let n = 1; n <= total; n++) {
      const { h, prs } = await runScenario(n, 'after', { createPrsForTestingBranches: true });
      const where = `crash after side effect ${n} of ${total}`;
      expect([where, await h.states(...prs)]).toEqual([where, ['MERGED', 'FAILED', 'MERGED', 'MERGED']]);
      // One draft PR per test branch the CI ran on, every one closed with its branch.
      const drafts = h.sandbox.testBranchPullRequests(repo);
      const branches = [...new Set(h.sandbox.ci.runs.map((r) => r.branch))].sort();
      expect([where, drafts.map((d) => d.head).sort()]).toEqual([where, branches]);
      expect([where, drafts.filter((d) => d.state !== 'closed')]).toEqual([where, []]);
    }
  });
});
