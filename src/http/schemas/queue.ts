import { z } from 'zod';
import {
  DIRECT_MERGE_MODES,
  MERGE_METHODS,
  OPTIMIZATION_MODES,
  QUEUE_MODES,
  SETTING_BOUNDS,
} from '../../domain/settings.js';
import { SETTABLE_QUEUE_STATES } from '../../domain/states.js';
import { MAX_QUEUE_PAGE_SIZE, MIN_QUEUE_PAGE_SIZE } from '../../service/pages.js';
import { DEFAULT_QUEUE_LIST_PAGE_SIZE, MAX_QUEUE_LIST_PAGE_SIZE, MIN_QUEUE_LIST_PAGE_SIZE } from '../../service/queue/queue-listing.js';
import { body, pageQuerySchema, queueRefFields, repoSchema, strictBody } from './common.js';
import { enqueueSettingsFields } from './enqueue-settings.js';
import { boolean, liberalEnum, liberalInt, nonEmptyString, optionalField } from './fields.js';
import { mergeHoldSettingsFields } from './merge-hold.js';
import { stormSettingsFields } from './storm-settings.js';

/** Request bodies of the queue operations; settings, defaults and bounds as in api.md. */

function bounded(field: keyof typeof SETTING_BOUNDS, description: string) {
  const [min, max] = SETTING_BOUNDS[field];
  return optionalField(liberalInt(min, max, description));
}

export const settingsFields = {
  mode: optionalField(liberalEnum(QUEUE_MODES, 'single (predictive queue) or parallel (lanes by impacted targets); default single')),
  concurrency: bounded('concurrency', 'test runs in flight at once; default 1'),
  testingTimeoutMinutes: bounded('testingTimeoutMinutes', 'a run with no verdict after this many minutes fails; default 300'),
  canOptimisticallyMerge: optionalField(boolean('a passing run also merges the PRs ahead it contains; default false')),
  pendingFailureDepth: bounded('pendingFailureDepth', 'runs behind a failure kept as flake evidence; default 0'),
  flakeRetries: bounded('flakeRetries', 'reruns of a failing run before its PR fails; default 1'),
  flakyTestRetries: bounded('flakyTestRetries', 'reruns of a unit whose failed tests are all known flaky or quarantined, outside flakeRetries; default 2'),
  skipRetryOnRealFailure: optionalField(boolean('a failure with a failed test not known flaky spends no flakeRetries rerun; default true')),
  testResultsWaitSeconds: bounded('testResultsWaitSeconds', 'how long after a failed run the queue waits for its test results; default 60'),
  batch: optionalField(boolean('test PRs in batches; default false')),
  batchingMaxWaitTimeMinutes: bounded('batchingMaxWaitTimeMinutes', 'longest wait for a batch to fill; default 5'),
  batchingMinSize: bounded('batchingMinSize', 'PRs per batch; default 4'),
  bisectionConcurrency: bounded('bisectionConcurrency', 'bisection runs in flight at once; default: concurrency at creation'),
  createPrsForTestingBranches: optionalField(boolean('open a draft PR from every test branch into the target branch, closed when its run ends; default false')),
  commentsEnabled: optionalField(boolean('comment on PRs; default true')),
  commandsEnabled: optionalField(boolean('accept /merge comment commands; default true')),
  statusCheckEnabled: optionalField(boolean('report a commit status on PRs; default true')),
  // null is a value here: back to the branch protection's required checks.
  requiredStatuses: z
    .array(nonEmptyString(255))
    .max(200, { error: 'at most 200 required statuses' })
    .nullable()
    .optional()
    .describe('the checks a run must pass; null: those branch protection requires (the default)'),
  directMergeMode: optionalField(liberalEnum(DIRECT_MERGE_MODES, 'merge an up-to-date PR without a test run; default off')),
  optimizationMode: optionalField(liberalEnum(OPTIMIZATION_MODES, 'default off')),
  mergeMethod: optionalField(liberalEnum(MERGE_METHODS, 'how a PR merges into the target branch; default squash')),
  ...enqueueSettingsFields,
  ...mergeHoldSettingsFields,
  ...stormSettingsFields,
};

const stateField = optionalField(
  liberalEnum(SETTABLE_QUEUE_STATES, 'running, paused or draining (switching_modes is entered by the queue itself)'),
);

export const createQueueSchema = strictBody({ ...queueRefFields, ...settingsFields, state: stateField });

export const updateQueueSchema = strictBody({ ...queueRefFields, ...settingsFields, state: stateField });

/** deleteQueue. */
export const queueRefSchema = body({ ...queueRefFields });

/** getQueue: a queue, and optionally which page of its enqueued pull requests. */
export const getQueueSchema = body({
  ...queueRefFields,
  page_query: optionalField(pageQuerySchema(MIN_QUEUE_PAGE_SIZE, MAX_QUEUE_PAGE_SIZE, MAX_QUEUE_PAGE_SIZE, 'enqueued pull requests per page')).describe(
    'which page of enqueuedPullRequests; absent: the first 1,000',
  ),
});

/** listQueues: the caller's queues, of one repository when `repo` is given. */
export const listQueuesSchema = strictBody({
  repo: optionalField(repoSchema.describe('only the queues of this repository')),
  page_query: optionalField(pageQuerySchema(MIN_QUEUE_LIST_PAGE_SIZE, MAX_QUEUE_LIST_PAGE_SIZE, DEFAULT_QUEUE_LIST_PAGE_SIZE, 'queues per page'))
    .transform((v) => v ?? { page_size: DEFAULT_QUEUE_LIST_PAGE_SIZE, page_token: '' })
    .describe(`which page; absent: the first ${DEFAULT_QUEUE_LIST_PAGE_SIZE}`),
});

export type SettingsFields = z.output<z.ZodObject<typeof settingsFields>>;
