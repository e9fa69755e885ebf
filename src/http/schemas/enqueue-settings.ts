import { z } from 'zod';
import { MAX_AUTO_ENQUEUE_AUTHORS, MAX_LABEL_LENGTH } from '../../domain/enqueue-rules.js';
import { boolean, nonEmptyString, optionalField } from './fields.js';

const autoEnqueueSchema = z
  .strictObject(
    {
      enabled: boolean('submit PRs once approved as the branch requires and their own checks are green'),
      authors: z
        .array(nonEmptyString(255))
        .max(MAX_AUTO_ENQUEUE_AUTHORS, { error: `at most ${MAX_AUTO_ENQUEUE_AUTHORS} authors` })
        .nullable()
        .optional()
        .describe('only PRs opened by these logins (e.g. renovate[bot]); absent or null: every author'),
    },
    { error: (iss) => (iss.code === 'unrecognized_keys' ? undefined : iss.input === undefined ? 'Required' : 'expected an object {enabled, authors}') },
  )
  .transform((v) => ({ enabled: v.enabled, authors: v.authors ?? null }));

/** The settings that submit PRs without a `/merge` (queue-labels.md): a label, or readiness itself. */
export const enqueueSettingsFields = {
  // null is a value here: no label enqueues.
  enqueueLabel: nonEmptyString(MAX_LABEL_LENGTH)
    .nullable()
    .optional()
    .describe('the GitHub label that submits a PR when a user with write access adds it, and cancels it when removed; null: off (the default)'),
  autoEnqueue: optionalField(autoEnqueueSchema).describe('submit PRs by themselves once ready; replaced as a whole; default {"enabled": false}'),
};
