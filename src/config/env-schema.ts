import { z } from 'zod';
import { networkList, networkListProblem } from '../webhooks/receiver-networks.js';
import { GIT_HOST_KINDS, LOG_LEVELS } from './config.js';

/**
 * The one schema over the environment. Every issue's path is the variable's name and its message
 * reads after it ("MERGEQ_PORT must be ..."); load-config.ts adds the offending value where it is
 * not a secret.
 */

/** Variables whose values never appear in an error message (keys, secrets, URIs with passwords). */
export const SECRET_VARIABLES: ReadonlySet<string> = new Set(['PRIVATE_KEY', 'WEBHOOK_SECRET', 'MONGODB_URI']);

function integerFrom(min: number, max: number, message = `must be an integer from ${min} to ${max}`) {
  return z
    .string()
    .trim()
    .refine((s) => /^\d+$/.test(s) && Number(s) >= min && Number(s) <= max, { error: message })
    .transform(Number);
}

function isHttpUrl(s: string): boolean {
  try {
    const url = new URL(s);
    return url.protocol === 'http:' || url.protocol === 'https:';
  } catch {
    return false;
  }
}

/** Accepts a key pasted into one line with literal `\n`, as many deployment tools require. */
function unescapeNewlines(key: string): string {
  return key.includes('\\n') ? key.replace(/\\n/g, '\n') : key;
}

export function looksLikePem(key: string): boolean {
  return /-----BEGIN [A-Z ]*PRIVATE KEY-----/.test(key);
}

const PEM_MESSAGE = 'must be a PEM private key ("-----BEGIN RSA PRIVATE KEY-----" ...)';

export const envSchema = z
  .object({
    MERGEQ_PORT: integerFrom(1, 65535).default(3000),
    MERGEQ_HOST: z
      .string()
      .trim()
      .regex(/^[^\s/]+$/, { error: 'must be a host name or IP address to listen on, e.g. 0.0.0.0' })
      .optional(),
    MERGEQ_DATA_DIR: z.string().default('./data'),
    MONGODB_URI: z
      .string()
      .trim()
      .regex(/^mongodb(\+srv)?:\/\/\S+$/, { error: 'must be a MongoDB connection string (mongodb://... or mongodb+srv://...)' })
      .optional(),
    APP_ID: integerFrom(1, Number.MAX_SAFE_INTEGER, "must be the GitHub App's numeric id").optional(),
    PRIVATE_KEY: z
      .string()
      .transform(unescapeNewlines)
      .refine(looksLikePem, { error: PEM_MESSAGE })
      .optional(),
    PRIVATE_KEY_PATH: z.string().optional(),
    WEBHOOK_SECRET: z.string().optional(),
    GITHUB_API_URL: z
      .string()
      .trim()
      .refine(isHttpUrl, { error: 'must be an http(s) URL, e.g. https://github.example.com/api/v3' })
      .optional(),
    WEBHOOK_PROXY_URL: z
      .string()
      .trim()
      .refine(isHttpUrl, { error: 'must be an http(s) URL of a webhook proxy channel, e.g. https://smee.io/abc123' })
      .optional(),
    GHE_HOST: z
      .string()
      .trim()
      .regex(/^[^\s/]+$/, { error: 'must be the host name of a GitHub Enterprise Server, e.g. github.example.com' })
      .optional(),
    GHE_PROTOCOL: z.string().trim().toLowerCase().pipe(z.enum(['https', 'http'], { error: 'must be https or http' })).default('https'),
    LOG_LEVEL: z
      .string()
      .trim()
      .toLowerCase()
      .pipe(z.enum(LOG_LEVELS, { error: `must be one of ${LOG_LEVELS.join(', ')}` }))
      .default('info'),
    MERGEQ_RATE_LIMIT: integerFrom(0, 1_000_000, 'must be requests per second, an integer from 0 (no limit) to 1000000').default(50),
    MERGEQ_RATE_BURST: integerFrom(1, 1_000_000).default(200),
    MERGEQ_HEADERS_TIMEOUT_SECONDS: integerFrom(1, 3600).default(10),
    MERGEQ_BODY_TIMEOUT_SECONDS: integerFrom(1, 3600).default(60),
    MERGEQ_LARGE_BODIES_PER_TOKEN: integerFrom(1, 1000).default(2),
    MERGEQ_HISTORY_DAYS: integerFrom(1, 36_500).default(90),
    MERGEQ_GITHUB_WRITES_PER_MINUTE: integerFrom(0, 100_000).default(80),
    MERGEQ_GITHUB_WRITES_PER_HOUR: integerFrom(0, 1_000_000).default(500),
    MERGEQ_QUEUE_LEASE_SECONDS: integerFrom(1, 3600).default(30),
    MERGEQ_WEBHOOK_ALLOWED_NETWORKS: z
      .string()
      .superRefine((list, ctx) => {
        const problem = networkListProblem(list);
        if (problem) ctx.addIssue({ code: 'custom', message: problem });
      })
      .transform(networkList)
      .default([]),
    MERGEQ_SLACK_API_URL: z
      .string()
      .trim()
      .refine(isHttpUrl, { error: 'must be an http(s) URL, e.g. https://slack.com/api/' })
      .transform((url) => (url.endsWith('/') ? url : `${url}/`))
      .optional(),
    MERGEQ_GITHOST: z
      .string()
      .trim()
      .toLowerCase()
      .pipe(z.enum(GIT_HOST_KINDS, { error: `must be one of ${GIT_HOST_KINDS.join(', ')}` }))
      .optional(),
  })
  .superRefine((env, ctx) => {
    if (env.PRIVATE_KEY !== undefined && env.PRIVATE_KEY_PATH !== undefined) {
      ctx.addIssue({
        code: 'custom',
        path: ['PRIVATE_KEY_PATH'],
        message: 'and PRIVATE_KEY are both set; set only one of them',
        params: { hideValue: true },
      });
    }
    if (resolveGitHostKind(env) !== 'github') return;
    const why = `is required for the GitHub git host (MERGEQ_GITHOST=github${
      env.MERGEQ_GITHOST === undefined ? ', chosen because APP_ID and a private key are set' : ''
    })`;
    const missing = (name: string, message: string) =>
      ctx.addIssue({ code: 'custom', path: [name], message, params: { hideValue: true } });
    if (env.APP_ID === undefined) missing('APP_ID', why);
    if (env.PRIVATE_KEY === undefined && env.PRIVATE_KEY_PATH === undefined) {
      missing('PRIVATE_KEY', `(or PRIVATE_KEY_PATH) ${why}`);
    }
    if (env.WEBHOOK_SECRET === undefined) missing('WEBHOOK_SECRET', why);
  });

export type ParsedEnv = z.output<typeof envSchema>;

/** `MERGEQ_GITHOST` when given; else `github` when APP_ID and a key are set, else `none`. */
export function resolveGitHostKind(env: Pick<ParsedEnv, 'MERGEQ_GITHOST' | 'APP_ID' | 'PRIVATE_KEY' | 'PRIVATE_KEY_PATH'>) {
  if (env.MERGEQ_GITHOST) return env.MERGEQ_GITHOST;
  const hasKey = env.PRIVATE_KEY !== undefined || env.PRIVATE_KEY_PATH !== undefined;
  return env.APP_ID !== undefined && hasKey ? 'github' : 'none';
}
