import type { GitHost } from '../../src/githost/githost.js';
import type { Store } from '../../src/store/store.js';
import { mapRoles } from '../store/map-roles.js';
import { harness, MIN, repo } from './harness.js';

class SimulatedCrash extends Error {}

/**
 * The first status on a PR is on its way (GitHub took it, the answer has not come back) while the PR
 * merges, and then the process dies: the next process, on the same store, tells the PR how it ended
 * (github.md, "Reports").
 */
test('a process dying with its pending status write in flight after the PR merged: the next one writes the final status', async () => {
  let dead = false;
  let answer: () => void = () => undefined;
  const answered = new Promise<void>((resolve) => (answer = resolve));
  const wrap = <T extends object>(target: T, holding?: string): T =>
    new Proxy(target, {
      get(obj, prop, receiver) {
        const value = Reflect.get(obj, prop, receiver) as unknown;
        if (typeof value !== 'function') return value;
        return async (...args: unknown[]) => {
          if (dead) throw new SimulatedCrash();
          const result = (await (value as (...a: unknown[]) => Promise<unknown>).apply(obj, args)) as unknown;
          if (prop === holding && (args[2] as { state?: string } | undefined)?.state === 'pending') {
            await answered;
            dead = true;
            throw new SimulatedCrash();
          }
          return result;
        };
      },
    });
  const h = await harness({ settings: { concurrency: 1 }, wrapStore: (s: Store) => mapRoles(s, (port) => wrap(port)), wrapGitHost: (g: GitHost) => wrap(g, 'reportStatus') });
  const pr = await h.submit();
  const head = h.sandbox.pullRequest(repo, pr)!.headSha;
  // The first engine is not idle while its status write hangs: time moves with a short real pause per step.
  for (let i = 0; i < 30 && h.sandbox.mergeCount(repo, pr) === 0; i++) await h.time.advanceBy(MIN, () => new Promise((resolve) => setTimeout(resolve, 10)));
  expect(h.sandbox.mergeCount(repo, pr)).toBe(1);
  await new Promise((resolve) => setTimeout(resolve, 20));
  answer();
  await new Promise((resolve) => setTimeout(resolve, 20));
  expect(dead).toBe(true);
  expect(h.sandbox.reportedStatuses(repo, head).map((s) => s.state)).toEqual(['pending']);

  const engine = h.restartEngine();
  engine.start();
  await h.advance(60);
  await engine.stop();
  expect(await h.states(pr)).toEqual(['MERGED']);
  expect(h.sandbox.reportedStatuses(repo, head).at(-1)).toMatchObject({ state: 'success', description: 'Merged' });
});
