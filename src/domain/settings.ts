/** Queue settings with their defaults and bounds (api.md, "Queue settings and defaults"). */
import type { HoldMode } from './merge-hold.js';
import type { MergeWindows } from './merge-window.js';

export const QUEUE_MODES = ['single', 'parallel'] as const;
export type QueueMode = (typeof QUEUE_MODES)[number];
export const DIRECT_MERGE_MODES = ['off', 'always'] as const;
export type DirectMergeMode = (typeof DIRECT_MERGE_MODES)[number];
export const OPTIMIZATION_MODES = ['off', 'bisection_skip_redundant_tests'] as const;
export type OptimizationMode = (typeof OPTIMIZATION_MODES)[number];
export const MERGE_METHODS = ['merge_commit', 'squash', 'rebase'] as const;
export type MergeMethod = (typeof MERGE_METHODS)[number];

export interface QueueSettings {
  mode: QueueMode;
  concurrency: number;
  testingTimeoutMinutes: number;
  canOptimisticallyMerge: boolean;
  pendingFailureDepth: number;
  flakeRetries: number;
  /** Reruns of a unit whose failed tests are all known flaky or quarantined (outside `flakeRetries`). */
  flakyTestRetries: number;
  /** A failure with a failed test not known flaky is real at once: no `flakeRetries` rerun. */
  skipRetryOnRealFailure: boolean;
  /** How long after a failed run the queue waits for its test results before deciding without them. */
  testResultsWaitSeconds: number;
  batch: boolean;
  batchingMaxWaitTimeMinutes: number;
  batchingMinSize: number;
  bisectionConcurrency: number;
  createPrsForTestingBranches: boolean;
  commentsEnabled: boolean;
  commandsEnabled: boolean;
  statusCheckEnabled: boolean;
  /** null: use the branch protection's required checks. */
  requiredStatuses: string[] | null;
  directMergeMode: DirectMergeMode;
  optimizationMode: OptimizationMode;
  mergeMethod: MergeMethod;
  /** The label that submits a PR when added and cancels it when removed (queue-labels.md); null: off. */
  enqueueLabel: string | null;
  autoEnqueue: AutoEnqueue;
  /** When the queue may merge (queue-policies.md); null: at any time. */
  mergeWindows: MergeWindows | null;
  /** What a freeze or a closed window holds back: merges, or also the start of new runs. */
  holdMode: HoldMode;
  /** Restarts a PR may take per cause before it is held (docs/queue-rules.md, "Restart budgets"). */
  restartBudgets: RestartBudgets;
  /** A storm: this many runs ended within `stormMinutes` and nothing merged (docs/queue-rules.md, "Storms"). */
  stormRuns: number;
  stormMinutes: number;
  /** While a storm lasts, only the head unit of the queue starts runs (no speculation past it). */
  stormPause: boolean;
}

/**
 * `bystander`: restarts because another PR broke a run it was in; `infrastructure`: retries of a run
 * that ended in a CI error. Past either the PR is held (NOT_READY, `restart_budget`).
 */
export interface RestartBudgets {
  bystander: number;
  infrastructure: number;
}

export const RESTART_BUDGET_BOUNDS = [0, 100] as const;

/** Submit PRs by themselves once ready (queue-labels.md); `authors` null: whoever opened them. */
export interface AutoEnqueue {
  enabled: boolean;
  authors: string[] | null;
}

/** Inclusive integer bounds of the numeric settings. */
export const SETTING_BOUNDS = {
  concurrency: [1, 1000],
  testingTimeoutMinutes: [1, 10080],
  pendingFailureDepth: [0, 100],
  flakeRetries: [0, 5],
  flakyTestRetries: [0, 5],
  testResultsWaitSeconds: [0, 3600],
  batchingMaxWaitTimeMinutes: [0, 1440],
  batchingMinSize: [1, 100],
  bisectionConcurrency: [1, 1000],
  stormRuns: [2, 1000],
  stormMinutes: [1, 1440],
} as const satisfies Partial<Record<keyof QueueSettings, readonly [number, number]>>;

/** Defaults for a new queue; `bisectionConcurrency` follows `concurrency` unless given. */
export function defaultSettings(overrides: Partial<QueueSettings> = {}): QueueSettings {
  const concurrency = overrides.concurrency ?? 1;
  return {
    mode: 'single',
    concurrency,
    testingTimeoutMinutes: 300,
    canOptimisticallyMerge: false,
    pendingFailureDepth: 0,
    flakeRetries: 1,
    flakyTestRetries: 2,
    skipRetryOnRealFailure: true,
    testResultsWaitSeconds: 60,
    batch: false,
    batchingMaxWaitTimeMinutes: 5,
    batchingMinSize: 4,
    bisectionConcurrency: concurrency,
    createPrsForTestingBranches: false,
    commentsEnabled: true,
    commandsEnabled: true,
    statusCheckEnabled: true,
    requiredStatuses: null,
    directMergeMode: 'off',
    optimizationMode: 'off',
    mergeMethod: 'squash',
    enqueueLabel: null,
    autoEnqueue: { enabled: false, authors: null },
    mergeWindows: null,
    holdMode: 'merge',
    restartBudgets: { ...DEFAULT_RESTART_BUDGETS },
    stormRuns: 10,
    stormMinutes: 30,
    stormPause: false,
    ...overrides,
  };
}

export const DEFAULT_RESTART_BUDGETS: RestartBudgets = { bystander: 3, infrastructure: 2 };

/** Queues stored before these settings existed read as the defaults. */
export function restartBudgetsOf(s: QueueSettings): RestartBudgets {
  return s.restartBudgets ?? DEFAULT_RESTART_BUDGETS;
}

export function stormSettingsOf(s: QueueSettings): { runs: number; minutes: number; pause: boolean } {
  return { runs: s.stormRuns ?? 10, minutes: s.stormMinutes ?? 30, pause: s.stormPause ?? false };
}
