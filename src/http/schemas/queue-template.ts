import { z } from 'zod';
import { body, MAX_NAME_LENGTH, repoSchema, strictBody } from './common.js';
import { nonEmptyString, optionalField } from './fields.js';
import { settingsFields } from './queue.js';

/** Characters git refuses in branch names, and glob syntax beyond `*` and `**` (queue-patterns.md). */
const PATTERN_PROBLEMS: readonly [RegExp, string][] = [
  [/\s/, 'must not contain spaces'],
  [/[~^:\\?[\]{}()!+@]/, 'only * and ** are wildcards; ~ ^ : \\ ? [ ] { } ( ) ! + @ are not allowed'],
  [/^\/|\/$|\/\//, 'must not start or end with / or contain //'],
  [/\*\*\*/, 'at most two * in a row'],
];

export const patternSchema = nonEmptyString(MAX_NAME_LENGTH, 'a branch pattern: * matches within one path segment (release/*), ** across segments (release/**)').superRefine(
  (value, ctx) => {
    for (const [re, message] of PATTERN_PROBLEMS) if (re.test(value)) ctx.addIssue({ code: 'custom', message });
  },
);

const templateRefFields = { repo: repoSchema, pattern: patternSchema };

export const queueTemplateSchema = strictBody({ ...templateRefFields, ...settingsFields });

export const templateRefSchema = body(templateRefFields);

export const listTemplatesSchema = strictBody({ repo: optionalField(repoSchema.describe('only the templates of this repository')) });

const templateRecordSchema = z.object({
  repo: z.object({ host: z.string(), owner: z.string(), name: z.string() }),
  pattern: z.string(),
  settings: z.record(z.string(), z.unknown()).describe('the settings given; each queue created from the template has the defaults for the others'),
  settingsSource: z.string().describe('api, or .github/mergeq.yml@<sha> while the repository\'s file manages it'),
  createdAt: z.string(),
  updatedAt: z.string(),
});

export const templateResponseSchema = templateRecordSchema;
export const templateListResponseSchema = z.object({ templates: z.array(templateRecordSchema) });
export const templateDeletedSchema = z.object({ deleted: z.boolean() });
