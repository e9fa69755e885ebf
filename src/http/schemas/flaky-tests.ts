import { z } from 'zod';
import { MAX_NAMED_FAILURES } from '../../domain/flaky.js';
import { QUARANTINE_SETTINGS, TEST_STATUSES } from '../../domain/quarantine.js';
import { body, MAX_BRANCH_LENGTH, MAX_NAME_LENGTH, prNumberSchema, repoSchema, strictBody } from './common.js';
import { boolean, liberalEnum, liberalInt, nonEmptyString, optionalField } from './fields.js';

/** Request and response bodies of the flaky-test operations (flaky-tests.md). */

export const MAX_VARIANT_LENGTH = 64;
const MAX_ID_LENGTH = 200;

const variantSchema = nonEmptyString(MAX_VARIANT_LENGTH, 'test variant (e.g. an OS or shard kind): a different test case per variant');

/** The metadata of an upload: JSON fields, or query parameters next to an XML body. */
export const uploadMetadataFields = {
  repo: repoSchema,
  commitSha: nonEmptyString(MAX_NAME_LENGTH, 'the commit the tests ran on'),
  branch: optionalField(nonEmptyString(MAX_BRANCH_LENGTH, 'the branch the tests ran on')),
  prNumber: optionalField(prNumberSchema),
  jobName: optionalField(nonEmptyString(MAX_NAME_LENGTH, 'the CI job')),
  variant: optionalField(variantSchema),
  uploadId: optionalField(nonEmptyString(MAX_ID_LENGTH, 'client-chosen id; repeating it answers the first upload and stores nothing')),
  pathRoot: optionalField(nonEmptyString(4096, 'the checkout directory on the runner: absolute file paths below it are made relative')),
};

export const uploadJsonSchema = body({
  ...uploadMetadataFields,
  junitXml: z
    .union([z.string(), z.array(z.string()).min(1, { error: 'must hold at least one document' })], {
      error: (iss) => (iss.input === undefined ? 'Required' : 'expected a string or an array of strings'),
    })
    .transform((v) => (typeof v === 'string' ? [v] : v))
    .describe('one JUnit XML document, or several files of one job'),
});

/** `repo` as query parameters: repo=owner/name&repoHost=github.com, or repo.host/owner/name. */
export const uploadQuerySchema = z
  .object({
    repo: nonEmptyString(2 * MAX_NAME_LENGTH + 1, 'owner/name'),
    repoHost: nonEmptyString(MAX_NAME_LENGTH, 'repository host').default('github.com'),
    commitSha: uploadMetadataFields.commitSha,
    branch: uploadMetadataFields.branch,
    prNumber: uploadMetadataFields.prNumber,
    jobName: uploadMetadataFields.jobName,
    variant: uploadMetadataFields.variant,
    uploadId: uploadMetadataFields.uploadId,
    pathRoot: uploadMetadataFields.pathRoot,
  })
  .transform(({ repo, repoHost, ...rest }, ctx) => {
    const [owner, name, ...extra] = repo.split('/');
    if (!owner || !name || extra.length > 0) {
      ctx.addIssue({ code: 'custom', path: ['repo'], message: 'expected owner/name' });
      return z.NEVER;
    }
    return { ...rest, repo: { host: repoHost, owner, name } };
  });

const namedTestSchema = z.object({ test_case_id: z.string(), name: z.string(), classname: z.string().nullable(), file: z.string().nullable() });

export const uploadResponseSchema = z.object({
  uploadId: z.string(),
  commitSha: z.string(),
  tests: z.number().int(),
  failed: z.number().int(),
  skipped: z.number().int(),
  quarantinedFailures: z.number().int().describe('failures of tests quarantined before this upload: the ones CI may forgive'),
  newlyFlaky: z.array(z.string()).describe('test_case_id of the tests this upload made flaky'),
  ignoredForDetection: z.boolean().describe('more than 80% of at least 20 tests failed: stored, not used for detection'),
  quarantinedFailedTests: z.array(namedTestSchema).describe('the failures counted in quarantinedFailures: quarantined before this upload, so forgiven'),
  failedTests: z.array(namedTestSchema).optional().describe(`the failed tests, the first ${MAX_NAMED_FAILURES}`),
  newlyFlakyTests: z.array(namedTestSchema).optional().describe('the tests of newlyFlaky, by name'),
  newlyQuarantinedFailures: z.number().int().optional().describe('failures of tests this upload quarantined: not forgiven to the run that produced them'),
  truncatedNames: z.number().int(),
  note: z.string().optional(),
});

const settingsFields = {
  flakyWindowDays: liberalInt(1, 30, 'days in which flaky events count'),
  flakyMinEvents: liberalInt(1, 1000, 'flaky events within the window that make a test flaky'),
  brokenRuns: liberalInt(1, 100, 'failures in a row on a target branch that make a test broken'),
  flakyRecoveryDays: liberalInt(1, 30, 'days without a flaky event after which a flaky test is healthy again'),
  autoQuarantine: boolean('quarantine flaky tests automatically'),
  targetBranches: z.array(nonEmptyString(MAX_BRANCH_LENGTH)).min(1).max(20).describe('the branches whose history counts as the target branch'),
};

export const repoOnlySchema = strictBody({ repo: repoSchema });

/** Omitted (or null) fields stay unchanged. */
export const updateSettingsSchema = strictBody({
  repo: repoSchema,
  flakyWindowDays: optionalField(settingsFields.flakyWindowDays),
  flakyMinEvents: optionalField(settingsFields.flakyMinEvents),
  brokenRuns: optionalField(settingsFields.brokenRuns),
  flakyRecoveryDays: optionalField(settingsFields.flakyRecoveryDays),
  autoQuarantine: optionalField(settingsFields.autoQuarantine),
  targetBranches: optionalField(settingsFields.targetBranches),
});

export const settingsResponseSchema = z.object({
  repo: z.object({ host: z.string(), owner: z.string(), name: z.string() }),
  flakyWindowDays: z.number().int(),
  flakyMinEvents: z.number().int(),
  brokenRuns: z.number().int(),
  flakyRecoveryDays: z.number().int(),
  autoQuarantine: z.boolean(),
  targetBranches: z.array(z.string()),
});

const testCaseIdSchema = nonEmptyString(MAX_ID_LENGTH, 'test_case_id');

export const testCaseRefSchema = strictBody({ repo: repoSchema, testCaseId: testCaseIdSchema });

export const setQuarantineSettingSchema = strictBody({
  repo: repoSchema,
  testCaseId: testCaseIdSchema,
  setting: liberalEnum(QUARANTINE_SETTINGS, 'always: quarantined whatever its status; never: never quarantined; auto: as detection says'),
  reason: optionalField(nonEmptyString(2000, 'why; recorded in the history')),
});

export const testCaseResponseSchema = z.object({
  test_case_id: z.string(),
  name: z.string(),
  parent: z.string().nullable(),
  file: z.string().nullable(),
  classname: z.string().nullable(),
  variant: z.string().nullable(),
  codeowners: z.array(z.string()),
  status: z.enum(TEST_STATUSES),
  status_last_updated_at: z.string(),
  quarantine_setting: z.enum(QUARANTINE_SETTINGS),
  quarantined: z.boolean(),
  quarantined_at: z.string().nullable(),
  history: z.array(z.record(z.string(), z.unknown())).describe('status and quarantine changes, oldest first, with evidence, who and why'),
  recentResults: z.array(z.record(z.string(), z.unknown())).describe('the latest results, newest first'),
});

const testNameSchema = z.object({
  file: optionalField(z.string()),
  classname: optionalField(z.string()),
  parent: optionalField(z.string()),
  name: z.string({ error: 'Required' }),
  variant: optionalField(z.string()),
});

export const quarantineConfigSchema = strictBody({
  repo: repoSchema,
  tests: optionalField(z.array(testNameSchema).max(50_000)),
  testCaseIds: optionalField(z.array(testCaseIdSchema).max(50_000)),
});

export const quarantineConfigResponseSchema = z.object({ quarantined: z.array(z.string()) });
