import type { Entry } from '../../src/domain/entry.js';
import { QueueTargets } from '../../src/engine/queue-targets.js';
import { openSqliteStore } from '../../src/store/open.js';
import { harness, repo } from './harness.js';

const repoKey = 'github.com/acme/widgets';

describe('impacted targets of a queue', () => {
  it('reads and interns a list once per PR head, and forgets heads that left the queue', async () => {
    const store = await openSqliteStore(':memory:');
    await store.targets.putImpactedTargets(repoKey, 1, 'sha-1', { all: false, targets: ['//b', '//a', '//b'] });
    await store.targets.putImpactedTargets(repoKey, 2, 'sha-2', { all: false, targets: ['//a', '//c'] });
    await store.targets.putImpactedTargets(repoKey, 3, 'sha-3', { all: true });
    let reads = 0;
    const get = store.targets.getImpactedTargets.bind(store.targets);
    store.targets.getImpactedTargets = (...args) => {
      reads++;
      return get(...args);
    };
    const targets = new QueueTargets(store.targets);
    const entries = [entry('e1', 1, 'sha-1'), entry('e2', 2, 'sha-2'), entry('e3', 3, 'sha-3')];
    const queue = { repoKey, entries } as Parameters<QueueTargets['load']>[0];

    const first = await targets.load(queue);
    expect(reads).toBe(3);
    const a = first.get('e1') as Uint32Array;
    const b = first.get('e2') as Uint32Array;
    expect(a).toHaveLength(2); // de-duplicated
    expect(first.get('e3')).toBe('ALL');
    // The same name gets the same id in every list of the queue.
    expect([...a].filter((id) => b.includes(id))).toHaveLength(1);

    const second = await targets.load(queue);
    expect(reads).toBe(3);
    expect(second.get('e1')).toBe(a);

    // A head that left the queue is dropped; if it comes back, it is read again.
    await targets.load({ ...queue, entries: entries.slice(1) });
    await targets.load(queue);
    expect(reads).toBe(4);
  });

  it('looks a missing list up again only once the queue says it was set', async () => {
    const store = await openSqliteStore(':memory:');
    let reads = 0;
    const get = store.targets.getImpactedTargets.bind(store.targets);
    store.targets.getImpactedTargets = (...args) => {
      reads++;
      return get(...args);
    };
    const targets = new QueueTargets(store.targets);
    const without = entry('e1', 1, 'sha-1');
    expect((await targets.load({ repoKey, entries: [without] } as never)).size).toBe(0);
    expect((await targets.load({ repoKey, entries: [without] } as never)).size).toBe(0);
    expect(reads).toBe(1);
    await store.targets.putImpactedTargets(repoKey, 1, 'sha-1', { all: false, targets: ['//x'] });
    const marked = { ...without, readiness: { ...without.readiness, hasImpactedTargets: true } };
    expect((await targets.load({ repoKey, entries: [marked] } as never)).get('e1')).toHaveLength(1);
    expect(reads).toBe(2);
  });

  it('makes a parallel-mode PR ready once its targets are stored, even if nobody recorded it', async () => {
    const h = await harness({ settings: { mode: 'parallel' } });
    const a = await h.submit({}, false);
    await h.engine.reconcile(h.queueId);
    expect((await h.entry(a)).state).toBe('NOT_READY');
    expect((await h.entry(a)).readiness.hasImpactedTargets).toBe(false);

    const head = h.sandbox.pullRequest(repo, a)!.headSha;
    await h.store.targets.putImpactedTargets(repoKey, a, head, { all: false, targets: ['//service:api'] });
    const fresh = h.restartEngine();
    await fresh.reconcile(h.queueId);
    expect((await h.entry(a)).readiness.hasImpactedTargets).toBe(true);
    expect((await h.entry(a)).state).not.toBe('NOT_READY');
  });
});

function entry(id: string, prNumber: number, prSha: string): Entry {
  return {
    id,
    prNumber,
    prSha,
    state: 'PENDING',
    readiness: { hasImpactedTargets: false },
  } as Entry;
}
