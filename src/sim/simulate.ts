import { pino } from 'pino';
import { submitEntry, type SubmitInput } from '../planner/index.js';
import { isActive } from '../domain/states.js';
import { initialReadiness, type Entry } from '../domain/entry.js';
import { derivedId } from '../domain/ids.js';
import { repoKey, type RepoRef } from '../domain/repo.js';
import { defaultSettings, type QueueSettings } from '../domain/settings.js';
import { Engine, type Fact } from '../engine/engine.js';
import { VirtualTime } from '../engine/virtual-time.js';
import type { StatusEvent } from '../githost/sandbox/ci.js';
import { SandboxGitHost } from '../githost/sandbox/sandbox-host.js';
import { spreadMinutes } from '../githost/sandbox/random.js';
import { flakyTestsFor } from '../githost/sandbox/test-suite.js';
import { recordImpactedTargets, recordStatusChecks } from '../planner/index.js';
import { openSqliteStore } from '../store/open.js';
import type { Store } from '../store/store.js';
import type { EtaErrors, PrOutcome, StopReason } from './measure.js';
import { EtaRecorder } from './eta-error.js';
import { loadMergeEstimates } from '../queue-docs/merge-estimates.js';
import { openMemoryStore } from '../store/memory/open-memory.js';
import { SimTestUploads } from './sim-test-uploads.js';
import { newSimQueue } from './sim-queue.js';
import type { Scenario } from './scenario.js';
import type { SimPr } from './workload.js';
import { RunCauses, type CauseCount } from './run-causes.js';
import { StackRelease, type Landing, type Standing } from './stack-release.js';
import { ChronicResubmits } from './chronic.js';

export const SIM_REPO: RepoRef = { host: 'sim.invalid', owner: 'bench', name: 'monorepo' };
const BRANCH = 'main';
const START_MS = Date.UTC(2026, 0, 5, 0, 0, 0);
const MIN = 60_000;
/** How often (virtual minutes) the stop conditions are checked. */
const CHECK_EVERY_MINUTES = 10;

export interface SimulationInput {
  scenario: Scenario;
  prs: readonly SimPr[];
  settings: Partial<QueueSettings>;
  /** Seed of the CI's flakes and durations (the same for every strategy: common random numbers). */
  seed: number;
  /**
   * Where the queue lives: the simulation store by default (in memory, no copies), or a real SQLite
   * `:memory:` store (same results, several times slower with a long queue), or a given store.
   */
  store?: 'memory' | 'sqlite' | Store;
  /**
   * Stop once this many arrived PRs are unresolved at once (checked every ten virtual minutes): a
   * queue that far behind cannot keep up, and simulating its ever longer queue only costs time.
   */
  stopAtBacklog?: number;
  /**
   * Stop once the CI runs started hold more PRs in all than this many per arrived PR (checked
   * likewise): a single queue restarting a long backlog holds thousands of runs of thousands of PRs
   * each in memory.
   */
  stopAtTestedPrsPerPr?: number;
  /** How the members of stacks reach the queue (stack-release.ts); `unit` by default. */
  landing?: Landing;
  /** Record why each CI run was started (run-causes.ts). */
  runCauses?: boolean;
}

export interface SimulationOutput {
  outcomes: PrOutcome[];
  /** CI runs started (cancelled, retried and bisection runs included). */
  ciRuns: number;
  /** Reason codes of every transition of every entry, counted. */
  reasons: Record<string, number>;
  /** Verdicts given (docs/verdicts.md), by code: every removal and restart of every entry. */
  verdicts: Record<string, number>;
  reconciles: number;
  wallMs: number;
  /** When the simulation stopped early (virtual minutes), and why; null when it ran to the close. */
  stopped: { atMinutes: number; because: StopReason } | null;
  /** PRs held by the CI runs started, summed over the runs. */
  testedPrs: number;
  /** How far the ETA the queue gave was from the merge (src/domain/eta.ts). */
  etaErrors: EtaErrors;
  /** Stack members never submitted (`one-by-one`: a layer below did not land), by index. */
  notSubmitted: number[];
  /** Storms the queue entered (docs/queue-rules.md, "Storms"), and the virtual minutes it spent in them. */
  storms: { count: number; minutes: number };
  /** CI runs by cause, when asked for (`runCauses`). */
  runCauses?: Record<string, CauseCount>;
}

/**
 * Runs the real engine and planner over the sandbox git host on virtual time: PRs arrive (opened in
 * the sandbox, submitted like the service does), CI reports when its drawn duration has passed, and
 * the queue is reconciled once per tick in which something happened or the planner asked to wake up.
 */
export async function simulate(input: SimulationInput): Promise<SimulationOutput> {
  const started = performance.now();
  const { scenario, prs } = input;
  // Events due within a tick are applied together, then the queue is reconciled once.
  const tick = scenario.tickMinutes;
  const time = new VirtualTime(START_MS);
  const sandbox = new SandboxGitHost({
    clock: time,
    scheduler: time,
    seed: input.seed,
    defaultBranch: BRANCH,
    ci: {
      contexts: ['ci'],
      duration: scenario.ciDuration,
      flakeRate: scenario.flakeRate,
      failureTiming: scenario.failureTiming,
      tests: scenario.testModel && { steadyTests: scenario.testModel.steadyTests, flakyTests: flakyTestsFor(scenario.flakeRate, scenario.testModel.flakyTests) },
    },
  });
  const store =
    input.store === 'sqlite' ? await openSqliteStore(':memory:') : input.store === undefined || input.store === 'memory' ? openMemoryStore() : input.store;
  // Nothing reads what the queue says on PRs here: saying it would only cost commits.
  const settings = defaultSettings({ statusCheckEnabled: false, commentsEnabled: false, ...input.settings });
  const queue = newSimQueue(SIM_REPO, BRANCH, settings, time.now());
  await store.queues.insertQueue(queue);
  const engine = new Engine({
    store,
    gitHost: sandbox,
    clock: time,
    scheduler: time,
    logger: pino({ level: 'silent' }),
    pollIntervalMs: Number.POSITIVE_INFINITY,
    retry: { delaysMs: [] },
  });
  const statuses: StatusEvent[] = [];
  sandbox.onStatus((e) => statuses.push(e));
  const uploads = new SimTestUploads(sandbox, store, time);
  const parallel = settings.mode === 'parallel';

  const closeAtMin = (prs.at(-1)?.arrivalMinutes ?? 0) + scenario.closeAfterMinutes;
  let nextArrival = 0;
  let nowMin = 0;
  let reconciles = 0;
  let stopped: SimulationOutput['stopped'] = null;
  let checkedAt = 0;
  const tested = new TestedPrs(sandbox);
  const etas = new EtaRecorder();
  const release = new StackRelease(input.landing ?? 'unit');
  const chronic = new ChronicResubmits(prs, scenario.chronic?.resubmits ?? 0);
  let again: SubmitInput[] = [];
  const storms = { count: 0, minutes: 0 };
  let stormSince: number | null = null;
  const causes = input.runCauses ? new RunCauses() : null;
  for (;;) {
    if (nowMin - checkedAt >= CHECK_EVERY_MINUTES) {
      checkedAt = nowMin;
      if (input.stopAtBacklog !== undefined && (await unresolvedCount(store, queue.id)) > input.stopAtBacklog) {
        stopped = { atMinutes: nowMin, because: 'backlog' };
        break;
      }
      if (input.stopAtTestedPrsPerPr !== undefined && tested.count() > input.stopAtTestedPrsPerPr * Math.max(1, nextArrival)) {
        stopped = { atMinutes: nowMin, because: 'ci_work' };
        break;
      }
    }
    const candidates = [
      prs[nextArrival]?.arrivalMinutes,
      minutesOf(time.nextTimerAt()),
      minutesOf(engine.wakeUpAt(queue.id)),
      release.hasDue() ? nowMin : undefined,
      again.length > 0 ? nowMin : undefined,
    ].filter((m): m is number => m !== undefined && m !== null);
    if (candidates.length === 0) break;
    nowMin = Math.max(nowMin + tick, Math.ceil(Math.min(...candidates) / tick) * tick);
    if (nowMin > closeAtMin) break;
    time.setNow(START_MS + nowMin * MIN);
    time.fireDue();

    const arrived: SimPr[] = [];
    while (nextArrival < prs.length && prs[nextArrival]!.arrivalMinutes <= nowMin) arrived.push(prs[nextArrival++]!);
    const now = time.now();
    for (const pr of arrived) openPullRequest(sandbox, pr, release.landing);
    const submit = release.submitNow(arrived);
    const facts: Fact[] = submit.length > 0 ? [await submitPullRequests(store, sandbox, submit, parallel, release.landing, now)] : [];
    if (again.length > 0) {
      const resubmitted = again.splice(0);
      facts.push((q) => resubmitted.reduce((acc, s) => submitEntry(acc, s, now).queue, q));
    }
    // A CI job uploads its results before it reports its statuses.
    const results = await uploads.flush();
    if (results) facts.push(results);
    if (statuses.length > 0) {
      const batch = statuses.splice(0);
      facts.push((q) => batch.reduce((acc, e) => recordStatusChecks(acc, e.sha, e.checks, now), q));
    }
    await engine.reconcile(queue.id, { facts });
    reconciles++;
    const doc = await store.queues.getQueueById(queue.id);
    if (doc) etas.observe(doc, await loadMergeEstimates(store.queues, doc, time.now()));
    if (doc) causes?.observe(doc);
    release.observe((index) => standing(sandbox, doc?.entries ?? [], index + 1));
    again = chronic.due(SIM_REPO, sandbox, doc?.entries ?? [], (n) => n <= nextArrival);
    if (doc?.storm && stormSince === null) {
      storms.count++;
      stormSince = nowMin;
    } else if (!doc?.storm && stormSince !== null) {
      storms.minutes += nowMin - stormSince;
      stormSince = null;
    }
  }

  const outcomes = await collectOutcomes(store, queue.id, prs);
  if (causes) {
    const doc = await store.queues.getQueueById(queue.id);
    causes.settle([...(await store.queues.archivedRuns(queue.id, {})), ...(doc?.runs ?? [])]);
  }
  const output: SimulationOutput = {
    outcomes: outcomes.outcomes,
    ciRuns: sandbox.ci.runs.length,
    reasons: outcomes.reasons,
    verdicts: outcomes.verdicts,
    reconciles,
    wallMs: performance.now() - started,
    stopped,
    testedPrs: tested.count(),
    etaErrors: etas.errors(prs, outcomes.outcomes, START_MS, spreadMinutes(scenario.ciDuration)),
    notSubmitted: release.notSubmitted(),
    storms: { count: storms.count, minutes: storms.minutes + (stormSince === null ? 0 : nowMin - stormSince) },
    ...(causes ? { runCauses: causes.counts() } : {}),
  };
  if (typeof input.store !== 'object') await store.close();
  return output;
}

/** PRs held by the CI runs started so far, summed; each run is counted once, when first seen. */
class TestedPrs {
  private total = 0;
  private seen = 0;

  constructor(private readonly sandbox: SandboxGitHost) {}

  count(): number {
    const runs = this.sandbox.ci.runs;
    for (; this.seen < runs.length; this.seen++) this.total += runs[this.seen]!.prNumbers.length;
    return this.total;
  }
}

async function unresolvedCount(store: Store, queueId: string): Promise<number> {
  const q = await store.queues.getQueueById(queueId);
  return q ? q.entries.filter((e) => isActive(e.state)).length : 0;
}

/**
 * Opens an arrived PR in the sandbox. Landed as a unit, a stack is a plain chain: each member above
 * the bottom is based on the head branch of the one below. One by one, a member is based on the target
 * by the time it is submitted, so it is opened there.
 */
function openPullRequest(sandbox: SandboxGitHost, pr: SimPr, landing: Landing): void {
  const chained = landing === 'unit' && pr.stack && pr.stack.position > 1;
  const opened = sandbox.openPullRequest(SIM_REPO, {
    title: `Change ${pr.index + 1}`,
    author: `dev${(pr.stack?.bottom ?? pr.index) % 17}`,
    bad: pr.bad,
    ...(chained ? { baseBranch: `change-${pr.index}` } : {}),
  });
  if (opened.number !== pr.index + 1) throw new Error(`sandbox numbered PR ${opened.number}, expected ${pr.index + 1}`);
  if (pr.breaksWith !== null) sandbox.addConflict(SIM_REPO, 'logical', pr.breaksWith + 1, opened.number);
}

/**
 * Answers the submission of opened PRs as one fact: `submitEntry`, the command the service runs, for
 * each of them; landed as a unit, a stack's members carry their place in it.
 */
async function submitPullRequests(store: Store, sandbox: SandboxGitHost, prs: SimPr[], parallel: boolean, landing: Landing, now: Date): Promise<Fact> {
  const submissions: SubmitInput[] = [];
  for (const pr of prs) {
    const opened = sandbox.pullRequest(SIM_REPO, pr.index + 1)!;
    if (parallel) {
      const targets = pr.targets === 'ALL' ? { all: true as const } : { all: false as const, targets: pr.targets };
      await store.targets.putImpactedTargets(repoKey(SIM_REPO), opened.number, opened.headSha, targets);
    }
    const stack = landing === 'unit' && pr.stack;
    submissions.push({
      entryId: derivedId('sim-entry', repoKey(SIM_REPO), opened.number),
      prNumber: opened.number,
      prTitle: opened.title,
      prSha: opened.headSha,
      prBaseBranch: opened.baseBranch,
      prAuthor: opened.author,
      priority: null,
      noBatch: null,
      readiness: initialReadiness(),
      ...(stack ? { stack: { id: `chain:${stack.bottom + 1}`, position: stack.position, kind: 'chain' as const, headRef: opened.headBranch } } : {}),
    });
  }
  return (q) => {
    let next = q;
    for (const s of submissions) {
      next = submitEntry(next, s, now).queue;
      if (parallel) next = recordImpactedTargets(next, s.prNumber, s.prSha);
    }
    return next;
  };
}

/** How a submitted PR stands: merged on the host or in the queue, ended otherwise, or still queued. */
function standing(sandbox: SandboxGitHost, entries: readonly Entry[], prNumber: number): Standing {
  if (sandbox.pullRequest(SIM_REPO, prNumber)?.state === 'merged') return 'merged';
  const latest = entries.filter((e) => e.prNumber === prNumber).sort((a, b) => b.seq - a.seq)[0];
  if (latest?.state === 'MERGED') return 'merged';
  // An ended entry leaves the document once archived.
  return latest && isActive(latest.state) ? 'queued' : 'ended';
}

async function collectOutcomes(
  store: Store,
  queueId: string,
  prs: readonly SimPr[],
): Promise<{ outcomes: PrOutcome[]; reasons: Record<string, number>; verdicts: Record<string, number> }> {
  const doc = await store.queues.getQueueById(queueId);
  const archived = await store.queues.archivedEntriesEndedSince([queueId], new Date(0).toISOString());
  const byPr = new Map<number, Entry>();
  for (const e of [...archived, ...(doc?.entries ?? [])]) {
    const seen = byPr.get(e.prNumber);
    if (!seen || seen.seq < e.seq) byPr.set(e.prNumber, e);
  }
  const reasons: Record<string, number> = {};
  const verdicts: Record<string, number> = {};
  for (const e of byPr.values()) {
    for (const h of e.history) {
      reasons[h.reason.code] = (reasons[h.reason.code] ?? 0) + 1;
      if (h.verdict) verdicts[h.verdict.code] = (verdicts[h.verdict.code] ?? 0) + 1;
    }
  }
  const outcomes = prs.map((pr): PrOutcome => {
    const e = byPr.get(pr.index + 1);
    if (!e || (e.state !== 'MERGED' && e.state !== 'FAILED' && e.state !== 'CANCELLED')) return { state: 'UNRESOLVED', mergedAtMinutes: null };
    if (e.state !== 'MERGED') return { state: e.state, mergedAtMinutes: null, ...(e.reason ? { reason: e.reason.code } : {}) };
    return { state: e.state, mergedAtMinutes: (Date.parse(e.stateChangedAt) - START_MS) / MIN };
  });
  return { outcomes, reasons, verdicts };
}

function minutesOf(ms: number | null): number | null {
  return ms === null ? null : (ms - START_MS) / MIN;
}
