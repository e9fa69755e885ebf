import { Engine } from '../../src/engine/engine.js';
import { VirtualTime } from '../../src/engine/virtual-time.js';
import { SandboxGitHost } from '../../src/githost/sandbox/sandbox-host.js';
import { defaultSettings } from '../../src/domain/settings.js';
import { newSimQueue } from '../../src/sim/sim-queue.js';
import { openSqliteStore } from '../../src/store/open.js';
import type { Store } from '../../src/store/store.js';
import { MIN, repo, silentLogger, submitSandboxPr } from './harness.js';

/**
 * Issue 39's spin: the service restarts on the same store, the sandbox comes back empty with the same
 * deterministic history, and the same PR (same number, same head) is submitted again. The target
 * branch is back at a head the queue's lineage knows as older than its own merge.
 */
describe('engine: a target branch that went back to an older head', () => {
  async function world(store: Store, time: VirtualTime) {
    const sandbox = new SandboxGitHost({ clock: time, scheduler: time, seed: 3, ci: { duration: { kind: 'fixed', minutes: 1 } } });
    const engine = new Engine({
      store,
      gitHost: sandbox,
      clock: time,
      scheduler: time,
      logger: silentLogger,
      retry: { delaysMs: [0, 0] },
      pollIntervalMs: MIN,
      effectRetryMs: MIN,
    });
    sandbox.onStatus((e) => void engine.recordStatuses(e.repo, e.sha, e.checks).catch(() => undefined));
    return { sandbox, engine };
  }

  async function submit(store: Store, queueId: string, sandbox: SandboxGitHost, time: VirtualTime): Promise<void> {
    const pr = sandbox.openPullRequest(repo, { title: 'Add a widget' });
    for (;;) {
      const q = (await store.queues.getQueueById(queueId))!;
      if (await store.queues.commitQueue({ ...submitSandboxPr(q, pr, time.now()), version: q.version + 1 }, q.version)) return;
    }
  }

  it('merges the PR again with one CI run instead of rebuilding it without end', async () => {
    const time = new VirtualTime();
    const store = await openSqliteStore(':memory:');
    const queue = newSimQueue(repo, 'main', defaultSettings({ mergeMethod: 'merge_commit' }), time.now());
    await store.queues.insertQueue(queue);

    const first = await world(store, time);
    await submit(store, queue.id, first.sandbox, time);
    first.engine.notify(queue.id);
    await time.advanceBy(3 * MIN, () => first.engine.whenIdle());
    expect((await store.queues.latestArchivedEntry(queue.id, 1))?.state).toBe('MERGED');
    await first.engine.stop();

    const second = await world(store, time);
    await submit(store, queue.id, second.sandbox, time);
    expect(second.sandbox.pullRequest(repo, 1)!.headSha).toBe(first.sandbox.pullRequest(repo, 1)!.headSha);
    second.engine.notify(queue.id);
    await time.advanceBy(3 * MIN, () => second.engine.whenIdle());
    await second.engine.whenIdle();

    const entry = (await store.queues.latestArchivedEntry(queue.id, 1))!;
    expect(entry.state).toBe('MERGED');
    expect(entry.history.length).toBeLessThan(10);
    expect(second.sandbox.stats.testBranchesCreated).toBeLessThanOrEqual(2);
    expect(second.sandbox.mergedInOrder(repo)).toEqual([1]);
    await second.engine.stop();
  });
});
