import type { QueueDoc } from '../../src/domain/queue.js';
import type { GitHost } from '../../src/githost/githost.js';
import type { Archive, Store } from '../../src/store/store.js';
import { harness, MIN, repo } from './harness.js';

/** The lease the engine takes for a queue (another replica taking it is simulated by writing it). */
const leaseOf = (queueId: string) => `queue:${queueId}`;

describe('engine: the per-queue lease', () => {
  it('while another replica holds the lease, records what it hears but acts on nothing; it takes the queue over once the lease runs out', async () => {
    const h = await harness({ ci: { hold: true }, engine: { leaseMs: 30_000 } });
    h.engine.start();
    const pr = await h.submit();
    await h.settle();
    expect(await h.states(pr)).toEqual(['TESTING']);

    // Another replica takes the lease (and dies holding it): its lease runs 30 s from now.
    const now = h.time.now().getTime();
    expect((await h.store.leases.takeLease(leaseOf(h.queueId), 'other-replica', now, now + 30_000)).holder).toBe('other-replica');
    for (const run of h.sandbox.ci.held()) h.sandbox.ci.release(run, 'success');
    await h.settle();
    // CI's verdict is stored (no lost fact), but nothing is merged by a replica without the lease.
    const run = (await h.doc()).runs[0]!;
    expect(run.statusChecks.map((c) => c.state)).toContain('success');
    expect(await h.states(pr)).toEqual(['TESTING']);
    expect(h.sandbox.mergeCount(repo, pr)).toBe(0);

    await h.time.advanceBy(29_000, () => h.engine.whenIdle());
    expect(h.sandbox.mergeCount(repo, pr)).toBe(0);
    await h.time.advanceBy(2_000, () => h.engine.whenIdle());
    await h.settle();
    expect(await h.states(pr)).toEqual(['MERGED']);
    expect(h.sandbox.mergeCount(repo, pr)).toBe(1);
    await h.engine.stop();
  });

  it("honours a wake-up that the replica which planned it did not live to see (another replica's polling)", async () => {
    const h = await harness({ settings: { batch: true, batchingMinSize: 4, batchingMaxWaitTimeMinutes: 10 } });
    const a = h.engine;
    const b = h.restartEngine({ pollIntervalMs: MIN });
    b.start();
    await h.settle();
    const pr = await h.submit({}, false);
    a.notify(h.queueId);
    await a.whenIdle();
    expect(await h.states(pr)).toEqual(['PENDING']);
    expect(a.wakeUpAt(h.queueId)).toBe(h.time.now().getTime() + 10 * MIN);
    await a.stop(); // the replica that planned the batch's wait dies with its timer

    await h.advance(11);
    expect(await h.states(pr)).toEqual(['TESTING']);
    await b.stop();
  });

  it('gives the lease up after each reconcile, so another replica can take the queue at once', async () => {
    const h = await harness();
    await h.submit();
    await h.settle();
    const now = h.time.now().getTime();
    expect((await h.store.leases.takeLease(leaseOf(h.queueId), 'other-replica', now, now + 30_000)).holder).toBe('other-replica');
  });
});

describe('engine: facts from outside', () => {
  it('records a CI result in the same commit as what the planner makes of it, not in a commit of its own', async () => {
    const committed: QueueDoc[] = [];
    const wrapStore = (s: Store): Store => ({
      ...s,
      queues: new Proxy(s.queues, {
        get(target, prop, receiver) {
          if (prop !== 'commitQueue') return Reflect.get(target, prop, receiver) as unknown;
          return (queue: QueueDoc, expected: number, archive?: Archive) => {
            committed.push(queue);
            return target.commitQueue(queue, expected, archive);
          };
        },
      }),
    });
    const h = await harness({ ci: { hold: true }, wrapStore });
    const pr = await h.submit();
    await h.settle();
    committed.length = 0;

    for (const run of h.sandbox.ci.held()) h.sandbox.ci.release(run, 'success');
    await h.settle();
    // The first commit after the result already holds the verdict it leads to.
    const first = committed[0]!;
    expect(first.runs[0]?.statusChecks.map((c) => c.state)).toContain('success');
    expect(first.entries.find((e) => e.prNumber === pr)?.state).toBe('TESTS_PASSED');
    expect(await h.states(pr)).toEqual(['MERGED']);
  });

  it('commits a fact on its own when no reconcile takes it up within 2 s (one is stuck in a slow merge)', async () => {
    let unblock!: () => void;
    const blocked = new Promise<void>((resolve) => (unblock = resolve));
    const wrapGitHost = (g: GitHost) =>
      new Proxy(g, {
        get(target, prop, receiver) {
          const value = Reflect.get(target, prop, receiver) as unknown;
          if (prop !== 'mergePullRequest' || typeof value !== 'function') return typeof value === 'function' ? value.bind(target) : value;
          return async (...args: unknown[]) => {
            await blocked;
            return (value as (...a: unknown[]) => Promise<unknown>).apply(target, args);
          };
        },
      });
    const h = await harness({ ci: { hold: true }, wrapGitHost, settings: { concurrency: 2 } });
    const [a, b] = [await h.submit(), await h.submit()];
    await h.settle();
    const [runA, runB] = h.sandbox.ci.held();
    h.sandbox.ci.release(runA!, 'success');
    const flush = async () => {
      for (let i = 0; i < 20; i++) await new Promise((resolve) => setImmediate(resolve));
    };
    await flush(); // a's merge is under way, and stuck
    h.sandbox.ci.release(runB!, 'failure');
    await flush();
    const checksOfB = async () => (await h.doc()).runs.find((r) => r.prs.some((p) => p.prNumber === b))?.statusChecks.map((c) => c.state);
    expect(await checksOfB()).not.toContain('failure');
    await h.time.advanceBy(2_000);
    await flush();
    expect(await checksOfB()).toContain('failure');

    unblock();
    await h.settle();
    expect(await h.states(a)).toEqual(['MERGED']);
    // b's failure was planned on once the stuck reconcile went on (its run held a too: b is a suspect).
    expect(await h.states(b)).toEqual(['PENDING_FAILURE']);
  });
});
