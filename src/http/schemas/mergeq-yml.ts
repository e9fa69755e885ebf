import { z } from 'zod';
import { targetBranchSchema } from './common.js';
import { optionalField } from './fields.js';
import { settingsFields } from './queue.js';
import { patternSchema } from './queue-template.js';

/** At most this many queues in one file. */
export const MAX_FILE_QUEUES = 200;

/**
 * One queue of `.github/mergeq.yml`: `branch` or `pattern`, and any settings of createQueue (the
 * same zod fields, so every setting the API gains is a setting of the file too).
 */
const fileQueueSchema = z
  .strictObject({
    branch: optionalField(targetBranchSchema.describe('the branch of the queue')),
    pattern: optionalField(patternSchema.describe('a branch pattern: the template of the queues of the branches matching it')),
    ...settingsFields,
  })
  .superRefine((q, ctx) => {
    if ((q.branch === undefined) === (q.pattern === undefined)) ctx.addIssue({ code: 'custom', message: 'needs exactly one of branch or pattern' });
  });

/** `.github/mergeq.yml` (docs/mergeq-yml.md); published as JSON Schema at /v1/schemas/mergeq.yml.json. */
export const mergeqYmlSchema = z
  .strictObject({
    queues: optionalField(z.array(fileQueueSchema).max(MAX_FILE_QUEUES, { error: `at most ${MAX_FILE_QUEUES} queues` }))
      .transform((v) => v ?? [])
      .describe('the queues of this repository, each by branch or by pattern, with their settings'),
  })
  .superRefine((file, ctx) => {
    const seen = new Set<string>();
    file.queues.forEach((q, i) => {
      const name = q.branch === undefined ? `pattern ${q.pattern}` : `branch ${q.branch}`;
      if (seen.has(name)) ctx.addIssue({ code: 'custom', path: ['queues', i, q.branch === undefined ? 'pattern' : 'branch'], message: `${name} is named twice` });
      seen.add(name);
    });
  })
  .describe('mergeq settings kept in the repository: .github/mergeq.yml on the default branch');

/** The file's JSON Schema (draft 2020-12), for editors (yaml-language-server, SchemaStore-style `$schema`). */
export function mergeqYmlJsonSchema(): Record<string, unknown> {
  return { ...z.toJSONSchema(mergeqYmlSchema, { io: 'input', target: 'draft-2020-12', unrepresentable: 'any' }), title: '.github/mergeq.yml' };
}
