import type { RepoRef } from '../../domain/repo.js';
import { repoKey } from '../../domain/repo.js';
import type { StatusCheck } from '../../domain/run.js';
import type { Clock } from '../../domain/clock.js';
import type { Scheduler, TimerHandle } from '../../domain/scheduler.js';
import { drawMinutes, type DurationSpec, type Random } from './random.js';
import { failedTests, runSuite, toJunit, type TestCaseRun, type TestSuite } from './test-suite.js';

/** The tests a broken run fails: those its changes break, or one for a change the host knows no more of. */
function brokenTestNames(input: { brokenTests?: string[]; prNumbers: number[] }): string[] {
  return input.brokenTests && input.brokenTests.length > 0 ? input.brokenTests : [`integration of ${input.prNumbers.map((n) => `#${n}`).join(', ')}`];
}

export interface CiOptions {
  /** Status contexts every run reports (the branch's required statuses). */
  contexts: string[];
  duration: DurationSpec;
  /** Probability that a run fails although its content is good. */
  flakeRate: number;
  /** Hold finished runs until the test releases them (a "fake executor"). */
  hold: boolean;
  /**
   * When a failing run reports its failure: at the `end` of its drawn duration, or at a `uniform`ly
   * drawn share of it — where its failing job happens to finish (the queue fails a run on its first
   * failing required check). Passing runs always take their whole duration.
   */
  failureTiming: FailureTiming;
  /**
   * The repository's tests: when set, runs fail on broken or flaky tests (instead of `flakeRate`) and
   * upload their results for the test branch head, as the CI wrapper would.
   */
  tests: TestSuite | null;
}

export type FailureTiming = 'end' | 'uniform';

export type CiOutcome = 'success' | 'failure';

export interface CiRun {
  /** 1, 2, ... in the order runs started. */
  no: number;
  repo: RepoRef;
  branch: string;
  sha: string;
  prNumbers: number[];
  /** The verdict drawn at start: the content's own, or a flake. */
  outcome: CiOutcome;
  flaked: boolean;
  minutes: number;
  startedAt: string;
  state: 'running' | 'held' | 'reported' | 'aborted';
  /** What each test did, with the test model on. */
  tests: TestCaseRun[] | null;
}

/** A run's test results, uploaded when it reports (before its statuses, as a CI job's last step). */
export interface TestResultsEvent {
  repo: RepoRef;
  sha: string;
  branch: string;
  junitXml: string;
}

export type TestResultsListener = (event: TestResultsEvent) => void;

export interface StatusEvent {
  repo: RepoRef;
  sha: string;
  branch: string;
  checks: StatusCheck[];
}

export type StatusListener = (event: StatusEvent) => void;

/**
 * Scripted CI: a run starts when a test branch is created; its verdict and duration are drawn at
 * once (seeded), and its statuses are reported when the duration has passed on the scheduler — or,
 * in hold mode, when the test releases it.
 */
export class ScriptedCi {
  readonly runs: CiRun[] = [];
  private readonly statuses = new Map<string, StatusCheck[]>();
  private readonly timers = new Map<CiRun, TimerHandle>();
  /** Runs not yet reported or aborted, by repo and sha. */
  private readonly live = new Map<string, CiRun[]>();
  private readonly listeners = new Set<StatusListener>();
  /** A stream of its own, so that the other draws are the same whatever the failure timing. */
  private readonly failureShares: Random;
  private readonly testDraws: Random;
  private readonly resultListeners = new Set<TestResultsListener>();
  /** Test models set per repository (POST /sandbox/tests), over `options.tests`; scripts count its runs from then. */
  private readonly repoTests = new Map<string, { suite: TestSuite; runsBefore: number }>();

  constructor(
    public options: CiOptions,
    private readonly clock: Clock,
    private readonly scheduler: Scheduler,
    private readonly random: Random,
  ) {
    this.failureShares = random.fork('failure-timing');
    this.testDraws = random.fork('tests');
  }

  /** The repository's tests from now on (null: back to `options.tests`). */
  setTests(repo: RepoRef, suite: TestSuite | null): void {
    const key = repoKey(repo);
    if (suite) this.repoTests.set(key, { suite, runsBefore: this.runsOf(key) });
    else this.repoTests.delete(key);
  }

  private runsOf(key: string): number {
    return this.runs.filter((r) => repoKey(r.repo) === key).length;
  }

  onTestResults(listener: TestResultsListener): () => void {
    this.resultListeners.add(listener);
    return () => this.resultListeners.delete(listener);
  }

  onStatus(listener: StatusListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  start(input: { repo: RepoRef; branch: string; sha: string; prNumbers: number[]; broken: boolean; brokenTests?: string[]; fixedMinutes: number | null }): CiRun {
    // Always draw both numbers, so one run's content never shifts the draws of the runs after it.
    const flakedRun = this.random.chance(this.options.flakeRate);
    const own = this.repoTests.size > 0 ? this.repoTests.get(repoKey(input.repo)) : undefined;
    const suite = own?.suite ?? this.options.tests;
    const runNo = own ? this.runsOf(repoKey(input.repo)) - own.runsBefore + 1 : this.runs.length + 1;
    const tests = suite ? runSuite(suite, input.broken ? brokenTestNames(input) : [], runNo, this.testDraws) : null;
    const flakyNames = new Set(suite?.flakyTests.map((t) => t.name) ?? []);
    const flaked = tests ? failedTests(tests).some((n) => flakyNames.has(n)) : flakedRun;
    const drawn = drawMinutes(this.options.duration, this.random);
    const share = this.failureShares.next();
    const outcome: CiOutcome = input.broken || flaked ? 'failure' : 'success';
    const early = outcome === 'failure' && this.options.failureTiming === 'uniform';
    const run: CiRun = {
      no: this.runs.length + 1,
      repo: input.repo,
      branch: input.branch,
      sha: input.sha,
      prNumbers: input.prNumbers,
      outcome,
      flaked: flaked && !input.broken,
      minutes: input.fixedMinutes ?? (early ? drawn * share : drawn),
      startedAt: this.clock.now().toISOString(),
      state: 'running',
      tests,
    };
    this.runs.push(run);
    const key = this.key(run.repo, run.sha);
    this.live.set(key, [...(this.live.get(key) ?? []), run]);
    this.statuses.set(this.key(run.repo, run.sha), this.options.contexts.map((context) => ({ context, state: 'pending', url: this.url(run) })));
    if (this.options.hold) {
      run.state = 'held';
    } else {
      this.timers.set(run, this.scheduler.schedule(run.minutes * 60_000, () => this.report(run, run.outcome)));
    }
    return run;
  }

  /** The branch was deleted: a run still going stops without a verdict. */
  abort(repo: RepoRef, sha: string): void {
    const key = this.key(repo, sha);
    for (const run of this.live.get(key) ?? []) {
      this.timers.get(run)?.cancel();
      this.timers.delete(run);
      run.state = 'aborted';
    }
    this.live.delete(key);
  }

  held(): CiRun[] {
    return this.runs.filter((r) => r.state === 'held');
  }

  /** Reports a held run now, with its drawn verdict or the one given. */
  release(run: CiRun, outcome: CiOutcome = run.outcome): void {
    if (run.state !== 'held') throw new Error(`CI run ${run.no} is not held (it is ${run.state})`);
    this.report(run, outcome);
  }

  setStatuses(repo: RepoRef, sha: string, checks: StatusCheck[]): void {
    this.statuses.set(this.key(repo, sha), checks.map((c) => ({ ...c })));
  }

  readStatuses(repo: RepoRef, sha: string): StatusCheck[] {
    return (this.statuses.get(this.key(repo, sha)) ?? []).map((c) => ({ ...c }));
  }

  private report(run: CiRun, outcome: CiOutcome): void {
    this.timers.delete(run);
    run.state = 'reported';
    const key = this.key(run.repo, run.sha);
    const stillLive = (this.live.get(key) ?? []).filter((r) => r !== run);
    if (stillLive.length > 0) this.live.set(key, stillLive);
    else this.live.delete(key);
    const checks: StatusCheck[] = this.options.contexts.map((context, i) => ({
      context,
      // A failing run fails its first context; the others pass, as when one job of a pipeline breaks.
      state: outcome === 'success' || i > 0 ? 'success' : 'failure',
      url: this.url(run),
    }));
    this.statuses.set(this.key(run.repo, run.sha), checks);
    if (run.tests) {
      const event: TestResultsEvent = { repo: run.repo, sha: run.sha, branch: run.branch, junitXml: toJunit(run.tests) };
      for (const listener of this.resultListeners) listener(event);
    }
    for (const listener of this.listeners) listener({ repo: run.repo, sha: run.sha, branch: run.branch, checks: checks.map((c) => ({ ...c })) });
  }

  private key(repo: RepoRef, sha: string): string {
    return `${repoKey(repo)}#${sha}`;
  }

  private url(run: CiRun): string {
    return `https://ci.sandbox.invalid/runs/${run.no}`;
  }
}
