import { pino } from 'pino';
import { cancelEntry, submitEntry } from '../../src/planner/index.js';
import { initialReadiness, type Entry } from '../../src/domain/entry.js';
import { derivedId } from '../../src/domain/ids.js';
import type { QueueDoc } from '../../src/domain/queue.js';
import { reason } from '../../src/domain/reasons.js';
import type { RepoRef } from '../../src/domain/repo.js';
import { defaultSettings, type QueueSettings } from '../../src/domain/settings.js';
import { Engine, type EngineOptions } from '../../src/engine/engine.js';
import { VirtualTime } from '../../src/engine/virtual-time.js';
import type { GitHost } from '../../src/githost/githost.js';
import type { CiOptions } from '../../src/githost/sandbox/ci.js';
import { SandboxGitHost, type OpenPullRequestInput } from '../../src/githost/sandbox/sandbox-host.js';
import type { SandboxPullRequest } from '../../src/githost/sandbox/repository.js';
import { newSimQueue } from '../../src/sim/sim-queue.js';
import { openSqliteStore } from '../../src/store/open.js';
import type { Store } from '../../src/store/store.js';

export const repo: RepoRef = { host: 'github.com', owner: 'acme', name: 'widgets' };
export const MIN = 60_000;
export const silentLogger = pino({ level: 'silent' });

export interface HarnessOptions {
  settings?: Partial<QueueSettings>;
  ci?: Partial<CiOptions>;
  /** Route CI statuses to the engine like webhooks (else only polling sees them). */
  listen?: boolean;
  engine?: Partial<EngineOptions>;
  /** Wrap the store or the git host (the crash test). */
  wrapStore?: (s: Store) => Store;
  wrapGitHost?: (g: GitHost) => GitHost;
}

/** A queue on a real SQLite store, the sandbox git host and virtual time, driven by a real engine. */
export async function harness(opts: HarnessOptions = {}) {
  const time = new VirtualTime();
  const sandbox = new SandboxGitHost({
    clock: time,
    scheduler: time,
    seed: 3,
    ci: { duration: { kind: 'fixed', minutes: 10 }, ...opts.ci },
  });
  const rawStore = await openSqliteStore(':memory:');
  const queue = newSimQueue(repo, 'main', defaultSettings({ concurrency: 3, ...opts.settings }), time.now());
  await rawStore.queues.insertQueue(queue);
  const store = opts.wrapStore ? opts.wrapStore(rawStore) : rawStore;
  const gitHost = opts.wrapGitHost ? opts.wrapGitHost(sandbox) : sandbox;

  const makeEngine = (wrapped = true, over: Partial<EngineOptions> = {}) =>
    new Engine({
      store: wrapped ? store : rawStore,
      gitHost: wrapped ? gitHost : sandbox,
      clock: time,
      scheduler: time,
      logger: silentLogger,
      retry: { delaysMs: [0, 0] },
      pollIntervalMs: Number.POSITIVE_INFINITY,
      effectRetryMs: MIN,
      ...opts.engine,
      ...over,
    });
  let engine = makeEngine();
  if (opts.listen !== false) sandbox.onStatus((e) => void engine.recordStatuses(e.repo, e.sha, e.checks).catch(() => undefined));

  const h = {
    time,
    sandbox,
    store: rawStore,
    queueId: queue.id,
    get engine() {
      return engine;
    },
    /**
     * Replaces the engine by a fresh one (a restarted process) on the same store and sandbox, without
     * the wrappers of the first one.
     */
    restartEngine(over: Partial<EngineOptions> = {}) {
      engine = makeEngine(false, over);
      return engine;
    },
    async settle() {
      await engine.whenIdle();
    },
    async advance(minutes: number) {
      await time.advanceBy(minutes * MIN, () => engine.whenIdle());
      await engine.whenIdle();
    },
    async doc(): Promise<QueueDoc> {
      return (await rawStore.queues.getQueueById(queue.id))!;
    },
    /** Opens a PR in the sandbox and submits it the way the service does; returns its number. */
    async submit(input: OpenPullRequestInput = {}, notify = true): Promise<number> {
      return h.enqueue(sandbox.openPullRequest(repo, input).number, notify);
    },
    /** Submits a PR that is already open in the sandbox. */
    async enqueue(prNumber: number, notify = true): Promise<number> {
      const pr = sandbox.pullRequest(repo, prNumber)!;
      await h.commit((q) => submitSandboxPr(q, pr, time.now()));
      if (notify) engine.notify(queue.id);
      return pr.number;
    },
    async cancel(prNumber: number) {
      const entry = await h.entry(prNumber);
      await h.commit((q) => cancelEntry(q, entry.id, reason('cancelled_by_user', 'cancelled by a user'), time.now()));
      engine.notify(queue.id);
    },
    async commit(change: (q: QueueDoc) => QueueDoc) {
      for (;;) {
        const q = await h.doc();
        if (await rawStore.queues.commitQueue({ ...change(q), version: q.version + 1 }, q.version)) return;
      }
    },
    /** The latest entry of a PR, active or archived. */
    async entry(prNumber: number): Promise<Entry> {
      const active = (await h.doc()).entries.filter((e) => e.prNumber === prNumber).sort((a, b) => b.seq - a.seq)[0];
      if (active) return active;
      const archived = await rawStore.queues.latestArchivedEntry(queue.id, prNumber);
      if (!archived) throw new Error(`no entry for #${prNumber}`);
      return archived;
    },
    async states(...prNumbers: number[]) {
      return Promise.all(prNumbers.map(async (n) => (await h.entry(n)).state));
    },
    /** Merged PR numbers in the order they landed on the target branch. */
    mergeOrder(): number[] {
      return sandbox.mergedInOrder(repo);
    },
  };
  return h;
}

export type Harness = Awaited<ReturnType<typeof harness>>;

/** The queue with the sandbox PR submitted the way the service submits it (read from the host). */
export function submitSandboxPr(q: QueueDoc, pr: SandboxPullRequest, now: Date): QueueDoc {
  return submitEntry(
    q,
    {
      entryId: derivedId('test-entry', pr.number, q.nextSeq),
      prNumber: pr.number,
      prTitle: pr.title,
      prSha: pr.headSha,
      prBaseBranch: pr.baseBranch,
      prAuthor: pr.author,
      priority: null,
      noBatch: null,
      readiness: initialReadiness(),
    },
    now,
  ).queue;
}
