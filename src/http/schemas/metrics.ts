import { z } from 'zod';
import { MAX_NAME_LENGTH } from './common.js';

/** Query of GET /getMergeQueueMetrics: `repo=owner/name` with `repoHost`, or neither (every repository). */
export const metricsQuerySchema = z
  .object({
    repo: z
      .string({ error: 'expected one value, owner/name' })
      .regex(/^[^/\s]+\/[^/\s]+$/, { error: 'expected owner/name, e.g. acme/widgets' })
      .max(2 * MAX_NAME_LENGTH + 1)
      .optional()
      .describe('owner/name; when omitted, every repository of the organization'),
    repoHost: z
      .string({ error: 'expected one value, a host name' })
      .min(1, { error: 'must not be empty' })
      .max(MAX_NAME_LENGTH)
      .optional()
      .describe('repository host, e.g. github.com; required when repo is given'),
  })
  .superRefine((q, ctx) => {
    if (q.repo !== undefined && q.repoHost === undefined) {
      ctx.addIssue({ code: 'custom', path: ['repoHost'], message: 'Required when repo is given' });
    }
  });
