import { z } from 'zod';
import { MERGEABILITY } from '../../domain/entry.js';
import { HOLD_MODES } from '../../domain/merge-hold.js';
import { REASON_CODES } from '../../domain/reasons.js';
import { CHECK_STATES, RUN_KINDS } from '../../domain/run.js';
import { DIRECT_MERGE_MODES, MERGE_METHODS, OPTIMIZATION_MODES, QUEUE_MODES } from '../../domain/settings.js';
import { PR_STATES, QUEUE_STATES } from '../../domain/states.js';
import type { QuarantinedTestJson } from '../../service/flaky/quarantine-service.js';
import type { ListedQueue } from '../../service/queue/queue-listing.js';
import type { PageJson } from '../../service/pages.js';
import type { EnqueuedPullRequestRecord, SubmittedPullRequestRecord } from '../../records/pull-request-record.js';
import type { QueueRecord } from '../../records/queue-record.js';
import type { SetImpactedTargetsRecord } from '../../service/queue/queue-service.js';
import type { TestRunRecord } from '../../records/test-run-record.js';
import { verdictSchema } from './verdict.js';
import { VERDICT_CODES } from '../../domain/verdict/verdict.js';
import { freezeRecordSchema, mergeWindowRecordSchema, mergeWindowsResponseSchema } from './merge-hold.js';
import { stormRecordSchema, stormSettingsResponseFields } from './storm-settings.js';

/**
 * What the operations answer, for the OpenAPI document. Each is checked against the service's record
 * type at compile time (`satisfies`), so the documentation cannot drift from what is sent.
 */

const timestamp = z.string().describe('ISO 8601 UTC with milliseconds');
const reasonSchema = z.object({ code: z.enum(REASON_CODES), message: z.string() });

const enqueuedFields = {
  id: z.string(),
  prNumber: z.number().int(),
  prTitle: z.string(),
  prSha: z.string(),
  prBaseBranch: z.string(),
  prAuthor: z.string(),
  state: z.enum(PR_STATES),
  stateChangedAt: timestamp,
  position: z.number().int().nullable().describe('1-based place in queue order; null while not ready or not in the queue'),
  priorityValue: z.number().int(),
  priorityName: z.string(),
  usedDefaultPriorityName: z.string().nullable().describe('the default priority name when none was given, else null'),
  skipTheLine: z.boolean(),
  noBatch: z.boolean(),
  estimatedMergeAt: timestamp.nullable().describe('when it should merge, from the queue\'s recent CI; null when not in the queue or no estimate'),
  estimatedMergeRange: z
    .object({
      earliest: timestamp,
      latest: timestamp,
      confidence: z.number().describe('the share of merges the range should hold: 0.8'),
    })
    .nullable()
    .describe('where the merge should fall, 80% of the time, from the spread of the queue\'s recent CI runs and its failure and flake rates; null exactly when estimatedMergeAt is'),
  estimateReason: z
    .object({ code: z.enum(['queue_paused', 'not_ready', 'no_ci_history', 'queue_held']), message: z.string() })
    .nullable()
    .describe('why there is no estimate'),
  reason: reasonSchema.nullable().describe('why the pull request is in its state; null before anything happened to it'),
  readinessNote: z.string().nullable().describe('what keeps it NOT_READY, as the git host says it (readiness.note); null when nothing does'),
  mergeHold: z
    .object({ message: z.string(), endsAt: timestamp.nullable() })
    .nullable()
    .describe('the freeze or closed merge windows keeping it from merging ("frozen until 2026-12-24 00:00 UTC: release"), and when they end (null: when unfrozen); the estimate falls after that end. Null when nothing holds it'),
  verdict: verdictSchema.nullable().describe('the newest verdict of a removal or restart of the PR; null while there was none'),
  stack: z
    .object({
      id: z.string().describe('stable while the stack exists: `native:<GitHub stack id>`, `chain:<bottom PR>` or `declared:<bottom PR>`'),
      number: z.number().int().nullable().describe("GitHub's stack number (its Stacks API's) for a native stack; null for a plain chain or a stack named by the REST caller"),
      kind: z.enum(['native', 'chain', 'declared']).describe('how the stack is known: GitHub\'s native stack, a plain chain of branches, or named by the REST caller (`declared`)'),
      position: z.number().int().describe('1 is the bottom, based on the target branch'),
      size: z.number().int().nullable().describe('how many PRs the unit holds: the members queued together (`members.length`); null for an ended entry read from the archive'),
      members: z.array(z.number().int()).nullable().describe('the PRs of the stack in the queue, bottom up: the unit tested and landed together; null for an ended entry read from the archive'),
    })
    .nullable()
    .describe('the stack it is queued with, tested and landed as one unit (docs/stacks.md); null when it stands alone'),
};

export const enqueuedPullRequestSchema = z.object(enqueuedFields) satisfies z.ZodType<EnqueuedPullRequestRecord>;

export const submittedPullRequestSchema = z.object({
  ...enqueuedFields,
  isCurrentlySubmittedToQueue: z.boolean(),
  readiness: z.object({
    hasImpactedTargets: z.boolean(),
    requiresImpactedTargets: z.boolean(),
    doesBaseBranchMatch: z.boolean(),
    gitHubMergeability: z.enum(MERGEABILITY),
    isOpen: z.boolean(),
    isDraft: z.boolean(),
    note: z.string().nullable(),
  }),
  testRunId: z.string().nullable(),
  history: z.array(z.object({ state: z.enum(PR_STATES), at: timestamp, reason: reasonSchema, verdict: verdictSchema.nullable() })),
}) satisfies z.ZodType<SubmittedPullRequestRecord>;

/** Seed 2.7's page object, in every paged answer. */
export const pageSchema = z.object({
  total_rows: z.number().int(),
  total_pages: z.number().int(),
  page_index: z.number().int(),
  next_page_token: z.string(),
  prev_page_token: z.string(),
  last_page_token: z.string(),
}) satisfies z.ZodType<PageJson>;

export const queueRecordSchema = z.object({
  id: z.string(),
  repo: z.object({ host: z.string(), owner: z.string(), name: z.string() }),
  branch: z.string(),
  state: z.enum(QUEUE_STATES),
  mode: z.enum(QUEUE_MODES),
  concurrency: z.number().int(),
  testingTimeoutMinutes: z.number().int(),
  canOptimisticallyMerge: z.boolean(),
  pendingFailureDepth: z.number().int(),
  flakeRetries: z.number().int(),
  flakyTestRetries: z.number().int(),
  skipRetryOnRealFailure: z.boolean(),
  testResultsWaitSeconds: z.number().int(),
  batch: z.boolean(),
  batchingMaxWaitTimeMinutes: z.number().int(),
  batchingMinSize: z.number().int(),
  bisectionConcurrency: z.number().int(),
  createPrsForTestingBranches: z.boolean(),
  commentsEnabled: z.boolean(),
  commandsEnabled: z.boolean(),
  statusCheckEnabled: z.boolean(),
  requiredStatuses: z.array(z.string()),
  requiredStatusesSource: z.enum(['queue', 'branch_protection']),
  directMergeMode: z.enum(DIRECT_MERGE_MODES),
  optimizationMode: z.enum(OPTIMIZATION_MODES),
  mergeMethod: z.enum(MERGE_METHODS),
  enqueueLabel: z.string().nullable(),
  autoEnqueue: z.object({ enabled: z.boolean(), authors: z.array(z.string()).nullable() }),
  mergeWindows: mergeWindowsResponseSchema,
  holdMode: z.enum(HOLD_MODES),
  ...stormSettingsResponseFields,
  freeze: freezeRecordSchema,
  mergeWindow: mergeWindowRecordSchema,
  storm: stormRecordSchema,
  enqueuedPullRequests: z.array(enqueuedPullRequestSchema).describe('the active pull requests, in queue order'),
  mergePath: z
    .enum(['fast_forward', 'merge_api'])
    .describe('how passed runs merge on GitHub: the target fast-forwarded to the tested commit, or the merge API one PR at a time'),
  fastForwardRefused: z
    .object({ at: timestamp, message: z.string() })
    .nullable()
    .describe("branch protection refused the App's fast-forward (no ruleset bypass): PRs merge through the merge API, and it is tried again 6 hours later"),
  createdFrom: z.object({ pattern: z.string() }).nullable().describe('the queue template whose pattern created this queue at the first submit to its branch'),
  settingsSource: z.string().describe('api, or .github/mergeq.yml@<sha> while the repository\'s file manages the settings (updateQueue then answers 409)'),
  createdAt: timestamp,
  updatedAt: timestamp,
}) satisfies z.ZodType<QueueRecord>;

export const testRunSchema = z.object({
  id: z.string(),
  kind: z.enum(RUN_KINDS),
  status: z.enum(['pending', 'passed', 'failed', 'timed_out', 'cancelled']),
  testBranch: z.string(),
  testBranchSha: z.string().nullable(),
  baseSha: z.string().nullable(),
  createdAt: timestamp,
  finishedAt: timestamp.nullable(),
  requiredStatuses: z.array(z.string()),
  requiredStatusesSource: z.enum(['queue', 'branch_protection']),
  statusChecks: z.array(z.object({ context: z.string(), state: z.enum(CHECK_STATES), url: z.string().nullable() })),
  testedPullRequests: z.array(z.object({ prNumber: z.number().int(), prSha: z.string(), prTitle: z.string() })),
  dependentPrs: z.array(z.number().int()),
  failedTests: z
    .array(z.object({ testCaseId: z.string(), name: z.string(), knownFlaky: z.boolean(), quarantined: z.boolean() }))
    .nullable()
    .describe('the tests that failed on the test branch head, from uploaded results, each known flaky or quarantined or not; null until results arrive'),
  verdicts: z
    .array(z.object({ prNumber: z.number().int(), code: z.enum(VERDICT_CODES), message: z.string() }))
    .describe('the verdicts of the PRs it tested that name it as evidence (docs/verdicts.md), in merge order'),
}) satisfies z.ZodType<TestRunRecord>;

export const testingDetailsResponseSchema = z.object({ testRuns: z.array(testRunSchema) });

export const setImpactedTargetsResponseSchema = z.object({
  prNumber: z.number().int(),
  prSha: z.string(),
  impactedTargets: z.object({ all: z.boolean(), count: z.number().int() }),
}) satisfies z.ZodType<SetImpactedTargetsRecord>;

export const deleteQueueResponseSchema = z.object({ deleted: z.boolean() });

/** getQueue: the queue record with a page of its enqueued pull requests. */
export const queuePageSchema = queueRecordSchema.extend({ page: pageSchema });

/** listQueues. */
export const queueListResponseSchema = z.object({
  queues: z.array(
    z.object({
      repo: z.object({ host: z.string(), owner: z.string(), name: z.string() }),
      branch: z.string(),
      state: z.enum(QUEUE_STATES),
      mode: z.string(),
      depth: z.number().int().describe('pull requests in the queue'),
      runsInFlight: z.number().int(),
      mergedLastHour: z.number().int(),
      failedLastHour: z.number().int(),
      p50TimeInQueueSeconds: z.number().nullable().describe('median submission-to-merge time of the PRs merged in the last hour'),
      mergeHold: z
        .object({ message: z.string(), endsAt: z.string().nullable() })
        .nullable()
        .describe('the freeze or closed merge windows holding its merges now ("frozen until 2026-12-24 00:00 UTC: release"), beside `state`; null when it may merge'),
    }) satisfies z.ZodType<ListedQueue>,
  ),
  page: pageSchema,
});

export const quarantinedTestsResponseSchema = z.object({
  quarantined_tests: z.array(
    z.object({
      name: z.string(),
      parent: z.string().nullable(),
      file: z.string().nullable(),
      classname: z.string().nullable(),
      codeowners: z.array(z.string()),
      quarantined_at: z.string().nullable(),
      status_last_updated_at: z.string(),
      test_case_id: z.string(),
      variant: z.string().nullable(),
      status: z.enum(['healthy', 'flaky', 'broken']),
      quarantine_setting: z.enum(['always', 'auto']),
    }) satisfies z.ZodType<QuarantinedTestJson>,
  ),
  page: pageSchema,
});

export const problemSchema = z.object({
  type: z.string(),
  title: z.string(),
  status: z.number().int(),
  code: z.string().describe('stable, machine-readable error code'),
  detail: z.string(),
  errors: z.array(z.object({ path: z.string(), message: z.string() })).describe('field problems (400 invalid_request)'),
});
