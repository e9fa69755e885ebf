import { randomUUID } from 'node:crypto';
import type { Org } from '../../src/domain/org.js';
import { NoGitHost } from '../../src/githost/none.js';
import { ServiceError } from '../../src/service/errors.js';
import { QueueService } from '../../src/service/queue/queue-service.js';
import { openSqliteStore } from '../../src/store/open.js';
import type { Store } from '../../src/store/store.js';
import { mapRoles } from '../store/map-roles.js';

/**
 * The QueueService itself, with a real SQLite store: tenancy before any lookup, optimistic
 * concurrency with retries, one reconcile request per change, nothing written by a failed request.
 */

const REPO = { host: 'github.com', owner: 'acme', name: 'widgets' };
const KEY = 'github.com/acme/widgets';
const ref = (branch = 'main') => ({ repo: REPO, targetBranch: branch });
const prRef = (number: number) => ({ ...ref(), pr: { number } });
const acme: Org = { id: 'org-acme', slug: 'acme', owners: ['github.com/acme'], createdAt: '2026-01-01T00:00:00.000Z' };
const globex: Org = { id: 'org-globex', slug: 'globex', owners: ['github.com/globex'], createdAt: '2026-01-01T00:00:00.000Z' };

/** The real store, with a hook run before each call of the named methods (to interleave other writers). */
/** The store with `hooks[method]` run before each role's method of that name; every call's name is recorded. */
function withHooks(store: Store, hooks: Partial<Record<string, () => Promise<void>>>, calls: string[] = []): Store {
  return mapRoles(store, (port) =>
    new Proxy(port, {
      get(target, prop, receiver) {
        const value = Reflect.get(target, prop, receiver);
        if (typeof value !== 'function') return value;
        return async (...args: unknown[]) => {
          calls.push(String(prop));
          await hooks[String(prop)]?.();
          return (value as (...a: unknown[]) => unknown).apply(target, args);
        };
      },
    }),
  );
}

class Recorder {
  readonly calls: string[] = [];
  notify(queueId: string) {
    this.calls.push(queueId);
  }
}

let store: Store;
const clock = { now: () => new Date('2026-11-22T10:00:00.000Z') };
beforeEach(async () => {
  store = await openSqliteStore(':memory:');
});
afterEach(async () => {
  await store.close();
});

function service(s: Store = store, notifier = new Recorder()) {
  return { svc: new QueueService({ store: s, gitHost: new NoGitHost(), clock, notifier }), notifier };
}

async function rejection(p: Promise<unknown>): Promise<ServiceError> {
  const err = await p.then(
    () => null,
    (e: unknown) => e,
  );
  if (!(err instanceof ServiceError)) throw new Error(`expected a ServiceError, got ${String(err)}`);
  return err;
}

/** Another writer (the engine) changes the queue document first. */
async function otherWriterCommits(change: (doc: NonNullable<Awaited<ReturnType<Store['queues']['getQueue']>>>) => object): Promise<void> {
  const doc = await store.queues.getQueue(KEY, 'main');
  if (!doc) return;
  await store.queues.commitQueue({ ...doc, ...change(doc), version: doc.version + 1 }, doc.version);
}

test("another organization's repository is refused before the store is asked anything", async () => {
  const calls: string[] = [];
  const { svc } = service(withHooks(store, {}, calls));
  const foreign = { repo: { host: 'github.com', owner: 'acme', name: 'widgets' }, targetBranch: 'main' };
  const attempts: Promise<unknown>[] = [
    svc.getQueue(globex, foreign),
    svc.createQueue(globex, foreign),
    svc.updateQueue(globex, { ...foreign, concurrency: 2 }),
    svc.deleteQueue(globex, foreign),
    svc.submitPullRequest(globex, { ...foreign, pr: { number: 1 } }),
    svc.cancelPullRequest(globex, { ...foreign, pr: { number: 1 } }),
    svc.restartTestsOnPullRequest(globex, { ...foreign, pr: { number: 1 } }),
    svc.getSubmittedPullRequest(globex, { ...foreign, pr: { number: 1 } }),
    svc.setImpactedTargets(globex, { ...foreign, pr: { number: 1, sha: 's' }, impactedTargets: { all: true } }),
    svc.getMergeQueueTestingDetails(globex, foreign),
  ];
  for (const p of attempts) expect((await rejection(p)).code).toBe('forbidden');
  expect(calls).toEqual([]);
});

test('a commit that loses to another writer is decided again on the new document', async () => {
  await service().svc.createQueue(acme, ref());
  let interleave = true;
  const hooked = withHooks(store, {
    commitQueue: async () => {
      if (!interleave) return;
      interleave = false;
      await otherWriterCommits(() => ({ targetSha: 'sha-from-engine' }));
    },
  });
  const { svc, notifier } = service(hooked);
  const record = await svc.submitPullRequest(acme, prRef(7));
  const doc = await store.queues.getQueue(KEY, 'main');
  expect(doc!.targetSha).toBe('sha-from-engine');
  expect(doc!.entries.map((e) => e.id)).toEqual([record.id]);
  expect(doc!.version).toBe(2);
  expect(notifier.calls).toEqual([doc!.id]);
});

test('when every attempt loses, the request fails with 503 queue_busy and writes nothing', async () => {
  await service().svc.createQueue(acme, ref());
  const hooked = withHooks(store, { commitQueue: () => otherWriterCommits((d) => ({ nextSeq: d.nextSeq })) });
  const { svc, notifier } = service(hooked);
  const err = await rejection(svc.submitPullRequest(acme, prRef(7)));
  expect([err.status, err.code]).toEqual([503, 'queue_busy']);
  expect((await store.queues.getQueue(KEY, 'main'))!.entries).toEqual([]);
  expect(notifier.calls).toEqual([]);
});

test('concurrent submissions to one queue all land, each once', async () => {
  const { svc } = service();
  await svc.createQueue(acme, ref());
  const numbers = Array.from({ length: 40 }, (_, i) => i + 1);
  await Promise.all([...numbers, ...numbers].map((n) => svc.submitPullRequest(acme, prRef(n))));
  const doc = await store.queues.getQueue(KEY, 'main');
  expect(doc!.entries.map((e) => e.prNumber).sort((a, b) => a - b)).toEqual(numbers);
  expect(new Set(doc!.entries.map((e) => e.seq)).size).toBe(40);
});

test('every change asks for one reconcile; reads and failed requests ask for none', async () => {
  const { svc, notifier } = service();
  const queue = await svc.createQueue(acme, ref());
  await svc.submitPullRequest(acme, prRef(1));
  await svc.updateQueue(acme, { ...ref(), state: 'paused' });
  await svc.cancelPullRequest(acme, prRef(1));
  expect(notifier.calls).toEqual([queue.id, queue.id, queue.id, queue.id]);

  notifier.calls.length = 0;
  await svc.getQueue(acme, ref());
  await svc.getSubmittedPullRequest(acme, prRef(1));
  await svc.getMergeQueueTestingDetails(acme, ref());
  await svc.cancelPullRequest(acme, prRef(1)); // already cancelled: nothing to do
  await rejection(svc.restartTestsOnPullRequest(acme, prRef(1)));
  await rejection(svc.createQueue(acme, ref()));
  await rejection(svc.submitPullRequest(acme, { ...prRef(2), targetBranch: 'nope' }));
  expect(notifier.calls).toEqual([]);
});

test('a refused command leaves the document as it was', async () => {
  const { svc } = service();
  await svc.createQueue(acme, ref());
  await svc.submitPullRequest(acme, prRef(1));
  const before = await store.queues.getQueue(KEY, 'main');
  const err = await rejection(svc.restartTestsOnPullRequest(acme, prRef(1)));
  expect([err.status, err.code]).toEqual([409, 'invalid_state']);
  expect(await store.queues.getQueue(KEY, 'main')).toEqual(before);
});

test('settings out of bounds are refused by the service too (for doors without a schema)', async () => {
  const { svc } = service();
  const err = await rejection(svc.createQueue(acme, { ...ref(), concurrency: 0, flakeRetries: 9 }));
  expect([err.status, err.code]).toEqual([400, 'invalid_request']);
  expect(err.errors?.map((e) => e.path)).toEqual(['concurrency', 'flakeRetries']);
  expect(await store.queues.getQueue(KEY, 'main')).toBeNull();
});

test('entry and queue ids come from the injected source', async () => {
  const ids = ['queue-id', 'entry-id'];
  const svc = new QueueService({ store, gitHost: new NoGitHost(), clock, notifier: new Recorder(), newId: () => ids.shift() ?? randomUUID() });
  expect((await svc.createQueue(acme, ref())).id).toBe('queue-id');
  expect((await svc.submitPullRequest(acme, prRef(3))).id).toBe('entry-id');
});
