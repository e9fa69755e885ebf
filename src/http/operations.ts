import { WEBHOOK_OPERATIONS } from './webhook-operations.js';
import { TEMPLATE_OPERATIONS } from './template-operations.js';
import { operation, type Operation } from './operation.js';
import { pullRequestRefSchema, setImpactedTargetsSchema, submitPullRequestSchema, testingDetailsSchema } from './schemas/pull-request.js';
import {
  quarantineConfigResponseSchema,
  quarantineConfigSchema,
  repoOnlySchema,
  setQuarantineSettingSchema,
  settingsResponseSchema,
  testCaseRefSchema,
  testCaseResponseSchema,
  updateSettingsSchema,
} from './schemas/flaky-tests.js';
import { listQuarantinedTestsSchema } from './schemas/quarantine.js';
import { freezeQueueSchema, unfreezeQueueSchema } from './schemas/merge-hold.js';
import { createQueueSchema, getQueueSchema, listQueuesSchema, queueRefSchema, updateQueueSchema } from './schemas/queue.js';
import {
  deleteQueueResponseSchema,
  quarantinedTestsResponseSchema,
  queueListResponseSchema,
  queuePageSchema,
  queueRecordSchema,
  setImpactedTargetsResponseSchema,
  submittedPullRequestSchema,
  testingDetailsResponseSchema,
} from './schemas/responses.js';

export const OPERATIONS: readonly Operation[] = [
  operation({
    path: '/submitPullRequest',
    summary: 'Submit a pull request to the queue for testing and merging',
    request: submitPullRequestSchema,
    response: submittedPullRequestSchema,
    errorStatuses: [403, 404, 409],
    run: (s, org, input) => s.queueService.submitPullRequest(org, input),
  }),
  operation({
    path: '/cancelPullRequest',
    summary: 'Remove a pull request from the queue',
    request: pullRequestRefSchema,
    response: submittedPullRequestSchema,
    errorStatuses: [403, 404, 409],
    run: (s, org, input) => s.queueService.cancelPullRequest(org, input),
  }),
  operation({
    path: '/restartTestsOnPullRequest',
    summary: 'Re-run the tests of a pull request that is testing, passed or pending failure',
    request: pullRequestRefSchema,
    response: submittedPullRequestSchema,
    errorStatuses: [403, 404, 409],
    run: (s, org, input) => s.queueService.restartTestsOnPullRequest(org, input),
  }),
  operation({
    path: '/getSubmittedPullRequest',
    summary: 'The status of the latest submission of a pull request',
    request: pullRequestRefSchema,
    response: submittedPullRequestSchema,
    errorStatuses: [403, 404],
    run: (s, org, input) => s.queueService.getSubmittedPullRequest(org, input),
  }),
  operation({
    path: '/setImpactedTargets',
    summary: 'Set the impacted targets of a pull request head (parallel queues)',
    request: setImpactedTargetsSchema,
    response: setImpactedTargetsResponseSchema,
    errorStatuses: [403, 404],
    run: (s, org, input) => s.queueService.setImpactedTargets(org, input),
  }),
  operation({
    path: '/getMergeQueueTestingDetails',
    summary: 'Test runs: one run, the runs that include a pull request, or all runs in flight',
    request: testingDetailsSchema,
    response: testingDetailsResponseSchema,
    errorStatuses: [403, 404],
    run: (s, org, input) => s.queueService.getMergeQueueTestingDetails(org, input),
  }),
  operation({
    path: '/createQueue',
    summary: 'Create a merge queue for a branch',
    request: createQueueSchema,
    response: queueRecordSchema,
    errorStatuses: [403, 409],
    run: (s, org, input) => s.queueService.createQueue(org, input),
  }),
  operation({
    path: '/getQueue',
    summary: 'Queue state, configuration and enqueued pull requests',
    request: getQueueSchema,
    response: queuePageSchema,
    errorStatuses: [403, 404],
    run: (s, org, input) =>
      s.queueService.getQueue(org, {
        repo: input.repo,
        targetBranch: input.targetBranch,
        ...(input.page_query ? { page: { pageSize: input.page_query.page_size, pageToken: input.page_query.page_token } } : {}),
      }),
  }),
  operation({
    path: '/listQueues',
    summary: "A page of the organization's queues (of one repository when `repo` is given), by repository and branch",
    request: listQueuesSchema,
    response: queueListResponseSchema,
    errorStatuses: [403],
    run: (s, org, input) =>
      s.queueListing.list(org, {
        ...(input.repo ? { repo: input.repo } : {}),
        pageSize: input.page_query.page_size,
        pageToken: input.page_query.page_token,
      }),
  }),
  operation({
    path: '/updateQueue',
    summary: 'Update queue settings and state; omitted fields stay unchanged',
    request: updateQueueSchema,
    response: queueRecordSchema,
    errorStatuses: [403, 404, 409],
    run: (s, org, input) => s.queueService.updateQueue(org, input),
  }),
  operation({
    path: '/deleteQueue',
    summary: 'Delete an empty queue; a missing queue answers {"deleted": false}',
    request: queueRefSchema,
    response: deleteQueueResponseSchema,
    errorStatuses: [403, 409],
    run: (s, org, input) => s.queueService.deleteQueue(org, input),
  }),
  operation({
    path: '/freezeQueue',
    summary: 'Freeze a queue: it keeps testing but merges nothing (urgent and named pull requests excepted) until unfrozen or endsAt',
    request: freezeQueueSchema,
    response: queueRecordSchema,
    errorStatuses: [403, 404],
    run: (s, org, input, token) => s.queueService.freezes.freeze(org, input, token.name),
  }),
  operation({
    path: '/unfreezeQueue',
    summary: 'Lift the freeze of a queue; held pull requests merge in queue order',
    request: unfreezeQueueSchema,
    response: queueRecordSchema,
    errorStatuses: [403, 404],
    run: (s, org, input) => s.queueService.freezes.unfreeze(org, input),
  }),
  operation({
    path: '/flaky-tests/list-quarantined-tests',
    summary: 'A page of the quarantined tests of a repository',
    request: listQuarantinedTestsSchema,
    response: quarantinedTestsResponseSchema,
    errorStatuses: [403],
    run: (s, org, input) =>
      s.quarantineService.list(org, {
        repo: input.repo,
        orgUrlSlug: input.org_url_slug,
        pageSize: input.page_query.page_size,
        pageToken: input.page_query.page_token,
      }),
  }),
  // POST /flaky-tests/upload takes XML bodies too: its own route (routes/flaky-upload-route.ts).
  operation({
    path: '/flaky-tests/getSettings',
    summary: "A repository's flaky-test detection and quarantine settings",
    request: repoOnlySchema,
    response: settingsResponseSchema,
    errorStatuses: [403],
    run: (s, org, input) => s.flakyTestService.getSettings(org, input.repo),
  }),
  operation({
    path: '/flaky-tests/updateSettings',
    summary: "Change a repository's flaky-test settings; omitted fields stay unchanged",
    request: updateSettingsSchema,
    response: settingsResponseSchema,
    errorStatuses: [403],
    run: (s, org, { repo, ...changes }) => s.flakyTestService.updateSettings(org, repo, changes),
  }),
  operation({
    path: '/flaky-tests/setQuarantineSetting',
    summary: 'Quarantine a test always, never, or as detection says (auto); recorded with who and why',
    request: setQuarantineSettingSchema,
    response: testCaseResponseSchema,
    errorStatuses: [403, 404],
    run: (s, org, input, token) =>
      s.flakyTestService.setQuarantineSetting(org, token.name, { repo: input.repo, testCaseId: input.testCaseId }, input.setting, input.reason ?? null),
  }),
  operation({
    path: '/flaky-tests/getTestCase',
    summary: 'A test case with its status history and recent results',
    request: testCaseRefSchema,
    response: testCaseResponseSchema,
    errorStatuses: [403, 404],
    run: (s, org, input) => s.flakyTestService.getTestCase(org, input),
  }),
  operation({
    path: '/flaky-tests/getQuarantineConfig',
    summary: 'Which of the named tests are quarantined now (for CI)',
    request: quarantineConfigSchema,
    response: quarantineConfigResponseSchema,
    errorStatuses: [403],
    run: (s, org, input) =>
      s.flakyTestService.getQuarantineConfig(org, input.repo, {
        ...(input.testCaseIds ? { testCaseIds: input.testCaseIds } : {}),
        ...(input.tests ? { tests: input.tests } : {}),
      }),
  }),
  ...TEMPLATE_OPERATIONS,
  ...WEBHOOK_OPERATIONS,
];
