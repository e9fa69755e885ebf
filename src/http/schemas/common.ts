import { z } from 'zod';
import { refNameProblem } from '../../domain/ref-name.js';
import { liberalInt, nonEmptyString, optionalField } from './fields.js';

/** Request fields shared by the queue operations (api.md, "Common request fields"). */

export const MAX_NAME_LENGTH = 255;
export const MAX_BRANCH_LENGTH = 1024;

export const repoSchema = z
  .object(
    {
      host: nonEmptyString(MAX_NAME_LENGTH, 'repository host name, e.g. github.com'),
      owner: nonEmptyString(MAX_NAME_LENGTH, 'repository owner or organization'),
      name: nonEmptyString(MAX_NAME_LENGTH, 'repository name'),
    },
    { error: (iss) => (iss.input === undefined ? 'Required' : 'expected an object {host, owner, name}') },
  )
  .describe('the repository');

export const targetBranchSchema = nonEmptyString(MAX_BRANCH_LENGTH, 'the branch the merge queue targets (a valid git branch name)').superRefine((value, ctx) => {
  const problem = refNameProblem(value);
  if (problem) ctx.addIssue({ code: 'custom', message: problem });
});

export const prNumberSchema = liberalInt(1, Number.MAX_SAFE_INTEGER, 'pull request number');

export const queueRefFields = { repo: repoSchema, targetBranch: targetBranchSchema };

export function prObject<S extends z.ZodRawShape>(shape: S) {
  return z.object(shape, { error: (iss) => (iss.input === undefined ? 'Required' : 'expected an object') });
}

export const prRefSchema = prObject({ number: prNumberSchema }).describe('the pull request');

const bodyError = (iss: z.core.$ZodRawIssue) =>
  iss.code === 'unrecognized_keys' ? undefined : iss.input === undefined ? 'Required: a JSON object' : 'expected a JSON object';

/**
 * The whole body: an object; anything else is one problem at the root. Fields it does not name are
 * ignored: the operations real clients call with extra fields (docs/api.md, "Unknown fields").
 */
export function body<S extends z.ZodRawShape>(shape: S) {
  return z.object(shape, { error: bodyError });
}

/** A body whose every field is the project's own: a field it does not name is a 400 (a typo, say `concurency`). */
export function strictBody<S extends z.ZodRawShape>(shape: S) {
  return z.strictObject(shape, { error: bodyError });
}

/** Seed 2.7's `page_query {page_size, page_token}`: an absent size is `fallback`, an absent token the first page. */
export function pageQuerySchema(min: number, max: number, fallback: number, what: string) {
  return z.object(
    {
      page_size: optionalField(liberalInt(min, max, `${what}, default ${fallback}`)).transform((v) => v ?? fallback),
      page_token: optionalField(z.string({ error: 'expected a string' }))
        .transform((v) => v ?? '')
        .describe('a token from a previous page object; empty or absent: the first page'),
    },
    { error: (iss) => (iss.input === undefined ? 'Required' : 'expected an object {page_size, page_token}') },
  );
}
