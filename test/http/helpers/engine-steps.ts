import type { Entry } from '../../../src/domain/entry.js';
import type { QueueDoc } from '../../../src/domain/queue.js';
import { reason } from '../../../src/domain/reasons.js';
import { repoKey } from '../../../src/domain/repo.js';
import { testBranchName, type RunStatus, type TestRun } from '../../../src/domain/run.js';
import type { PrState } from '../../../src/domain/states.js';
import { transition } from '../../../src/domain/transition.js';
import type { Archive } from '../../../src/store/store.js';
import { ACME_REPO } from './requests.js';
import type { TestApp } from './test-app.js';

/**
 * What the engine would write, written straight to the store: these tests are about the API, so
 * they put the queue into the states the engine produces rather than running CI.
 */
export async function engineCommit(
  t: TestApp,
  branch: string,
  change: (queue: QueueDoc) => { queue: QueueDoc; archive?: Archive },
): Promise<QueueDoc> {
  const current = await t.store.queues.getQueue(repoKey(ACME_REPO), branch);
  if (!current) throw new Error(`no queue ${branch}`);
  const { queue, archive } = change(current);
  const next = { ...queue, version: current.version + 1 };
  if (!(await t.store.queues.commitQueue(next, current.version, archive))) throw new Error('conflict');
  return next;
}

function entryOf(queue: QueueDoc, prNumber: number): Entry {
  const entry = queue.entries.find((e) => e.prNumber === prNumber);
  if (!entry) throw new Error(`PR #${prNumber} is not in the queue`);
  return entry;
}

/** The PRs become ready (PENDING) and take positions in the given order, each a unit of its own. */
export function makeReady(t: TestApp, branch: string, prNumbers: number[]): Promise<QueueDoc> {
  return engineCommit(t, branch, (q) => {
    const at = t.clock.now();
    const ids = prNumbers.map((n) => entryOf(q, n).id);
    return {
      queue: {
        ...q,
        entries: q.entries.map((e) =>
          ids.includes(e.id) ? { ...transition(e, 'PENDING', reason('ready', 'ready'), at), readyAt: at.toISOString() } : e,
        ),
        units: [...q.units, ...ids.map((id) => ({ id: `unit-${id}`, entryIds: [id], createdAt: at.toISOString() }))],
      },
    };
  });
}

/** One run testing the given PRs (in that order; the last one's unit decides it); they go TESTING. */
export async function startRun(
  t: TestApp,
  branch: string,
  prNumbers: number[],
  opts: { runId: string; status?: RunStatus },
): Promise<QueueDoc> {
  return engineCommit(t, branch, (q) => {
    const at = t.clock.now();
    const entries = prNumbers.map((n) => entryOf(q, n));
    const last = entries[entries.length - 1]!;
    const run: TestRun = {
      id: opts.runId,
      queueId: q.id,
      kind: 'main',
      status: opts.status ?? 'pending',
      unitId: `unit-${last.id}`,
      prs: entries.map((e) => ({ entryId: e.id, prNumber: e.prNumber, prSha: e.prSha, prTitle: e.prTitle })),
      dependencyEntryIds: entries.slice(0, -1).map((e) => e.id),
      attempt: 0,
      testBranch: testBranchName(branch, opts.runId),
      testBranchSha: opts.status === 'creating' ? null : `tb-${opts.runId}`,
      baseSha: 'base-sha',
      createdAt: at.toISOString(),
      finishedAt: null,
      requiredStatuses: ['ci'],
      requiredStatusesSource: 'queue',
      statusChecks: [{ context: 'ci', state: 'pending', url: 'https://ci.example/1' }],
      conflictEntryId: null,
      cancelReason: null,
      cleanedUp: false,
    };
    return {
      queue: {
        ...q,
        entries: q.entries.map((e) =>
          e.id === last.id ? { ...transition(e, 'TESTING', reason('test_started', 'testing'), at), testRunId: run.id } : e,
        ),
        runs: [...q.runs, run],
      },
    };
  });
}

/** Moves a PR to a state (as the engine would), without touching runs. */
export function setState(t: TestApp, branch: string, prNumber: number, state: PrState): Promise<QueueDoc> {
  return engineCommit(t, branch, (q) => {
    const entry = entryOf(q, prNumber);
    return { queue: { ...q, entries: q.entries.map((e) => (e.id === entry.id ? transition(e, state, reason('tests_passed', state), t.clock.now()) : e)) } };
  });
}

/** The PR merged; its entry, its unit and its finished run leave the document for the archive. */
export function mergeAndArchive(t: TestApp, branch: string, prNumber: number): Promise<QueueDoc> {
  return engineCommit(t, branch, (q) => {
    const at = t.clock.now();
    const entry = entryOf(q, prNumber);
    const merged = { ...transition(entry, 'MERGED', reason('merged', 'merged'), at), testRunId: null, mergeCommitSha: 'merge-sha' };
    const runs = q.runs.filter((r) => r.prs.some((p) => p.entryId === entry.id));
    const finished = runs.map((r) => ({ ...r, status: 'passed' as const, finishedAt: at.toISOString() }));
    return {
      queue: {
        ...q,
        entries: q.entries.filter((e) => e.id !== entry.id),
        units: q.units.filter((u) => !u.entryIds.includes(entry.id)),
        runs: q.runs.filter((r) => !runs.includes(r)),
      },
      archive: { entries: [merged], runs: finished },
    };
  });
}
