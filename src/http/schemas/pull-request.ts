import { z } from 'zod';
import { MAX_PRIORITY, MIN_PRIORITY, PRIORITY_NAMES, type PriorityName } from '../../domain/priority.js';
import type { ImpactedTargets } from '../../domain/targets.js';
import { MAX_STACK_MEMBERS } from '../../domain/stack.js';
import { body, prNumberSchema, prObject, prRefSchema, queueRefFields, strictBody } from './common.js';
import { boolean, nonEmptyString, optionalField } from './fields.js';

/** Request bodies of the pull-request operations. */

const PRIORITY_NAME_LIST = Object.keys(PRIORITY_NAMES) as [PriorityName, ...PriorityName[]];
const DIGITS = /^\s*\d+\s*$/;
const priorityProblem = `expected ${PRIORITY_NAME_LIST.join(', ')} or an integer from ${MIN_PRIORITY} to ${MAX_PRIORITY}`;

/** A priority name (any case) or a value 0–255 (0 most urgent; a string of digits is accepted). */
export const prioritySchema = z.codec(
  z.unknown().meta({
    anyOf: [
      { type: 'string', enum: PRIORITY_NAME_LIST, description: 'priority name, case-insensitive' },
      { type: ['integer', 'string'], minimum: MIN_PRIORITY, maximum: MAX_PRIORITY, pattern: '^\\s*\\d+\\s*$' },
    ],
    description: `urgent (0), high (10), medium (100, the default) or low (200), or a value ${MIN_PRIORITY}–${MAX_PRIORITY}; 0 is most urgent`,
  }),
  z.union([z.enum(PRIORITY_NAME_LIST), z.number().int().min(MIN_PRIORITY).max(MAX_PRIORITY)], { error: priorityProblem }),
  {
    // decode only normalises; the union then validates whatever came in.
    decode: (v) => (typeof v === 'string' ? (DIGITS.test(v) ? Number(v) : v.toLowerCase()) : v) as PriorityName | number,
    encode: (v) => v,
  },
);

/** Strict: a misspelt `priorty` or `nobatch` would otherwise submit at the default silently. */
export const submitPullRequestSchema = strictBody({
  ...queueRefFields,
  pr: prRefSchema,
  priority: optionalField(prioritySchema),
  noBatch: optionalField(boolean('never batch this pull request with others')),
  stack: optionalField(stackRequestSchema()),
});

/**
 * `{below: true}`: the stack the git host knows the PR to be in (GitHub's native stack, or a plain
 * chain of base branches); `{prs: [..]}`: the stack's PRs bottom to top. Either queues the members up
 * to `pr.number` as one unit (docs/stacks.md).
 */
function stackRequestSchema() {
  return z
    .union([
      z.strictObject({ below: z.literal(true) }),
      z.strictObject({ prs: z.array(prNumberSchema).min(1).max(MAX_STACK_MEMBERS) }),
    ])
    .describe('queue the pull request with the members of its stack below it, as one unit');
}

/** cancelPullRequest, restartTestsOnPullRequest, getSubmittedPullRequest. */
export const pullRequestRefSchema = body({ ...queueRefFields, pr: prRefSchema });

const ALL_SPELLINGS = ['ALL', 'IMPACTS_ALL'];
/** A list with many bad names reports this many of them (each at its index). */
const MAX_TARGET_PROBLEMS = 20;

/**
 * `'ALL'` or a list of strings. Checked by hand rather than with a zod union, so that a bad element
 * is reported at its own path (`impactedTargets.3`) and a list of 700,000 names is checked in one pass.
 */
const targetListOrAll = z.custom<'ALL' | string[]>().superRefine((v, ctx) => {
  if (v === 'ALL') return;
  if (!Array.isArray(v)) {
    ctx.addIssue({ code: 'custom', message: v === undefined ? 'Required' : 'expected "ALL" or an array of target names' });
    return;
  }
  let problems = 0;
  for (let i = 0; i < v.length && problems < MAX_TARGET_PROBLEMS; i++) {
    if (typeof v[i] !== 'string') {
      problems++;
      ctx.addIssue({ code: 'custom', path: [i], message: 'expected a target name (a string)' });
    }
  }
});

/** `"ALL"` (also the older `"IMPACTS_ALL"`, any case) or a list of target names. */
export const impactedTargetsSchema = z
  .codec(
    z.unknown().meta({
      anyOf: [
        { type: 'string', enum: ALL_SPELLINGS, description: 'the PR impacts every target (case-insensitive)' },
        { type: 'array', items: { type: 'string' }, description: 'the names of the targets the PR impacts' },
      ],
    }),
    targetListOrAll,
    {
      // decode only normalises; the check above then validates whatever came in.
      decode: (v) => (typeof v === 'string' && ALL_SPELLINGS.includes(v.toUpperCase()) ? 'ALL' : v) as 'ALL' | string[],
      encode: (v) => v,
    },
  )
  .transform((v): ImpactedTargets => (v === 'ALL' ? { all: true } : { all: false, targets: v }));

export const setImpactedTargetsSchema = body({
  ...queueRefFields,
  pr: prObject({ number: prRefSchema.shape.number, sha: nonEmptyString(256, 'the head commit SHA the targets belong to') }).describe(
    'the pull request and its head SHA',
  ),
  impactedTargets: impactedTargetsSchema,
});

export const testingDetailsSchema = body({
  ...queueRefFields,
  testRunId: optionalField(nonEmptyString(256, 'one test run')),
  pr: optionalField(prRefSchema.describe('the runs that include this pull request')),
});
