import type { ReasonCode } from '../reasons.js';
import type { CheckState, RunKind, RunStatus } from '../run.js';

/**
 * A verdict: who broke what, said once when a PR leaves the queue or is restarted (docs/verdicts.md).
 * `code` is stable; `message` one line for a person; `evidence` the same as data, for a program.
 */
export const VERDICT_CODES = ['culprit', 'bystander', 'flaky', 'infrastructure', 'conflict', 'policy', 'manual'] as const;
export type VerdictCode = (typeof VERDICT_CODES)[number];

/** Evidence stays small (it is kept on each transition and sent in every event of the PR): at most this many runs per list… */
export const MAX_EVIDENCE_RUNS = 5;
/** …this many PR numbers per run… */
export const MAX_REF_PRS = 20;
/** …and this many tests, and culprits. */
export const MAX_EVIDENCE_TESTS = 20;

/** A run named as evidence: enough to find it (getMergeQueueTestingDetails) and open it (`url`). */
export interface RunRef {
  id: string;
  kind: RunKind;
  status: Exclude<RunStatus, 'creating'>;
  /** The PRs on its test branch, in merge order: the last MAX_REF_PRS of them (its own PRs come last). */
  prNumbers: number[];
  /** How many PRs its test branch held in all. */
  prCount: number;
  /** The first link its CI reported (a failing check's when one failed); null when none did. */
  url: string | null;
  createdAt: string;
  finishedAt: string | null;
  /** Its CI time, in whole minutes (to `finishedAt`, or to the verdict while still running). */
  minutes: number;
}

export interface VerdictTest {
  testCaseId: string;
  name: string;
  /** The first line of its failure as its JUnit report gave it; null when the report gave none. */
  firstFailureLine: string | null;
  knownFlaky: boolean;
  quarantined: boolean;
  /** The runs (ids) in which it failed. */
  runIds: string[];
}

export interface VerdictCheck {
  context: string;
  state: CheckState;
  url: string | null;
}

export interface CulpritEvidence {
  failedTests: VerdictTest[];
  failingChecks: VerdictCheck[];
  /** The failed runs that held it, newest first. */
  runs: RunRef[];
  isolation: {
    /** `bisection`: a prefix of its batch failed with it; `test_blame`: the runs failing one test all held it; `own_run`: its own run and reruns failed. */
    method: 'bisection' | 'test_blame' | 'own_run';
    /** The bisection runs of its batch (prefixes), oldest first; empty unless `bisection`. */
    bisectionRuns: RunRef[];
    /** The step that named it, in words (the reason the queue recorded). */
    step: string;
  };
  /** A run without it, built after its first failure, passed: its failing tests pass on the target without it. Null: not known. */
  passedWithoutIt: { runId: string } | null;
}

export interface BystanderEvidence {
  /** What restarted it (the reason code of the transition). */
  cause: ReasonCode;
  /** The PRs whose failure or removal it paid for; empty when the queue no longer holds them. */
  culprits: { prNumber: number; entryId: string }[];
  /** What it cost: the runs it was in that ended without passing because of them, and their CI minutes. */
  cost: { runs: number; minutes: number };
  runs: RunRef[];
}

export interface FlakyEvidence {
  cause: ReasonCode;
  /** The failed tests that were forgiven or rerun (empty when the CI uploads no results). */
  tests: VerdictTest[];
  failingChecks: VerdictCheck[];
  runs: RunRef[];
  reruns: number;
}

export interface InfrastructureEvidence {
  cause: ReasonCode;
  /** `error`: a required check errored (or was cancelled) with no test failing; `timeout`: no verdict in time; `git_host`: the git host failed. */
  kind: 'error' | 'timeout' | 'git_host';
  /** The CI's own words: the checks as it reported them, and the queue's reason. */
  checks: VerdictCheck[];
  detail: string;
  runs: RunRef[];
  reruns: number;
}

export interface ConflictEvidence {
  cause: ReasonCode;
  /** The PR its merge conflicted with (on the test branch), if known. */
  withPrNumber: number | null;
  /** The commit it conflicted with (the target head), if known. */
  withCommit: string | null;
  runId: string | null;
  detail: string;
}

export interface PolicyEvidence {
  cause: ReasonCode;
  detail: string;
}

export type ManualEvidence = PolicyEvidence;

interface Base<C extends VerdictCode, E> {
  code: C;
  message: string;
  /** When it was said: the time of the transition that carries it. */
  at: string;
  evidence: E;
}

export type Verdict =
  | Base<'culprit', CulpritEvidence>
  | Base<'bystander', BystanderEvidence>
  | Base<'flaky', FlakyEvidence>
  | Base<'infrastructure', InfrastructureEvidence>
  | Base<'conflict', ConflictEvidence>
  | Base<'policy', PolicyEvidence>
  | Base<'manual', ManualEvidence>;
