import { z } from 'zod';
import { REASON_CODES } from '../../domain/reasons.js';
import { CHECK_STATES, RUN_KINDS } from '../../domain/run.js';
import type { Verdict } from '../../domain/verdict/verdict.js';

/** The verdict of a removal or restart (docs/verdicts.md), as the OpenAPI document describes it. */

const timestamp = z.string().describe('ISO 8601 UTC with milliseconds');
const cause = z.enum(REASON_CODES).describe('the reason code of the transition that carries the verdict');

const runRef = z.object({
  id: z.string(),
  kind: z.enum(RUN_KINDS),
  status: z.enum(['pending', 'passed', 'failed', 'timed_out', 'cancelled']),
  prNumbers: z.array(z.number().int()).describe('the PRs on its test branch, in merge order: the last 20 (its own come last)'),
  prCount: z.number().int().describe('how many PRs its test branch held'),
  url: z.string().nullable().describe("the first link its CI reported (a failing check's when one failed)"),
  createdAt: timestamp,
  finishedAt: timestamp.nullable(),
  minutes: z.number().int().describe('its CI time in whole minutes'),
});

const test = z.object({
  testCaseId: z.string(),
  name: z.string(),
  firstFailureLine: z.string().nullable().describe('the first line of its failure in the JUnit report; null when it gave none'),
  knownFlaky: z.boolean(),
  quarantined: z.boolean(),
  runIds: z.array(z.string()).describe('the runs in which it failed'),
});

const check = z.object({ context: z.string(), state: z.enum(CHECK_STATES), url: z.string().nullable() });
const told = z.object({ cause, detail: z.string().describe('the reason the queue recorded, in words') });

const verdictOf = <C extends string, E extends z.ZodType>(code: C, evidence: E, what: string) =>
  z
    .object({
      code: z.literal(code),
      message: z.string().describe('one line for a person'),
      at: timestamp,
      evidence,
    })
    .describe(what);

export const verdictSchema = z
  .discriminatedUnion('code', [
    verdictOf(
      'culprit',
      z.object({
        failedTests: z.array(test).describe('the first 20 failed tests'),
        failingChecks: z.array(check),
        runs: z.array(runRef).describe('the failed runs that held it, newest first (at most 5)'),
        isolation: z.object({
          method: z.enum(['bisection', 'test_blame', 'own_run']),
          bisectionRuns: z.array(runRef).describe('the prefix runs of its batch, oldest first'),
          step: z.string().describe('the step that named it'),
        }),
        passedWithoutIt: z.object({ runId: z.string() }).nullable().describe('a run without it, built after its first failure, that passed'),
      }),
      'its own change fails',
    ),
    verdictOf(
      'bystander',
      z.object({
        cause,
        culprits: z.array(z.object({ prNumber: z.number().int(), entryId: z.string() })),
        cost: z.object({ runs: z.number().int(), minutes: z.number().int() }).describe('the runs it was in that the culprits broke, and their CI minutes'),
        runs: z.array(runRef),
      }),
      'in a run that failed because of another PR; retested without it',
    ),
    verdictOf(
      'flaky',
      z.object({ cause, tests: z.array(test), failingChecks: z.array(check), runs: z.array(runRef), reruns: z.number().int() }),
      'a failure forgiven or rerun as flaky',
    ),
    verdictOf(
      'infrastructure',
      z.object({
        cause,
        kind: z.enum(['error', 'timeout', 'git_host']),
        checks: z.array(check).describe("the CI's own words: the checks as it reported them"),
        detail: z.string(),
        runs: z.array(runRef),
        reruns: z.number().int(),
      }),
      'CI errored, timed out or was cancelled outside the queue',
    ),
    verdictOf(
      'conflict',
      z.object({
        cause,
        withPrNumber: z.number().int().nullable(),
        withCommit: z.string().nullable(),
        runId: z.string().nullable(),
        detail: z.string(),
      }),
      'it does not merge cleanly with a PR ahead or the target branch',
    ),
    verdictOf('policy', told, 'a rule of the queue or the repository: approval lost, closed, updated, frozen, priority'),
    verdictOf('manual', told, 'a person acted: cancelled, restarted, merged or pushed by hand'),
  ])
  .describe('who broke what, said when the PR left the queue or was restarted (docs/verdicts.md)') satisfies z.ZodType<Verdict>;
