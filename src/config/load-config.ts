import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import type { z } from 'zod';
import type { Config, GitHostConfig } from './config.js';
import { misspelledVariables } from './misspelled-variables.js';
import { envSchema, looksLikePem, resolveGitHostKind, SECRET_VARIABLES, type ParsedEnv } from './env-schema.js';
import { ConfigError } from './config-error.js';
import { withStoredApp } from './stored-app.js';

export interface LoadConfigOptions {
  /** Base of a relative MERGEQ_DATA_DIR; defaults to the working directory. */
  cwd?: string;
  readFile?: (path: string) => string;
}

/** Validates the environment; throws ConfigError listing every problem. */
export function loadConfig(env: Record<string, string | undefined>, options: LoadConfigOptions = {}): Config {
  const cwd = options.cwd ?? process.cwd();
  const present = withStoredApp(presentValues(env), resolve(cwd, env.MERGEQ_DATA_DIR?.trim() || './data'));
  const parsed = envSchema.safeParse(present);
  if (!parsed.success) throw new ConfigError(parsed.error.issues.map((issue) => describeIssue(issue, present)));
  const e = parsed.data;
  return {
    port: e.MERGEQ_PORT,
    // The sandbox drives fake repositories with no real users: local only, unless asked otherwise.
    host: e.MERGEQ_HOST ?? (resolveGitHostKind(e) === 'sandbox' ? '127.0.0.1' : '0.0.0.0'),
    dataDir: resolve(cwd, e.MERGEQ_DATA_DIR),
    mongodbUri: e.MONGODB_URI ?? null,
    logLevel: e.LOG_LEVEL,
    gitHost: gitHostConfig(e, options.readFile ?? ((path) => readFileSync(path, 'utf8'))),
    limits: {
      ratePerSecond: e.MERGEQ_RATE_LIMIT,
      rateBurst: e.MERGEQ_RATE_BURST,
      headersTimeoutMs: e.MERGEQ_HEADERS_TIMEOUT_SECONDS * 1000,
      bodyTimeoutMs: e.MERGEQ_BODY_TIMEOUT_SECONDS * 1000,
      largeBodiesPerToken: e.MERGEQ_LARGE_BODIES_PER_TOKEN,
      historyDays: e.MERGEQ_HISTORY_DAYS,
    },
    queueLeaseMs: e.MERGEQ_QUEUE_LEASE_SECONDS * 1000,
    webhookAllowedNetworks: e.MERGEQ_WEBHOOK_ALLOWED_NETWORKS,
    ...(e.MERGEQ_SLACK_API_URL ? { slackApiUrl: e.MERGEQ_SLACK_API_URL } : {}),
    warnings: [...warningsFor(e), ...misspelledVariables(present)],
  };
}

/** Empty variables count as unset (`FOO=` in a compose file or .env). */
function presentValues(env: Record<string, string | undefined>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(env)) {
    if (value !== undefined && value.trim() !== '') out[name] = value;
  }
  return out;
}

function describeIssue(issue: z.core.$ZodIssue, env: Record<string, string>): string {
  const name = String(issue.path[0] ?? 'environment');
  const value = env[name];
  const hideValue = SECRET_VARIABLES.has(name) || (issue.code === 'custom' && issue.params?.hideValue === true);
  return `${name} ${issue.message}${value !== undefined && !hideValue ? ` (got ${JSON.stringify(value)})` : ''}`;
}

function gitHostConfig(e: ParsedEnv, readFile: (path: string) => string): GitHostConfig {
  const kind = resolveGitHostKind(e);
  if (kind !== 'github') return { kind };
  // The schema guarantees the credentials are present for `github`.
  return {
    kind,
    appId: e.APP_ID!,
    privateKey: e.PRIVATE_KEY ?? readPrivateKey(e.PRIVATE_KEY_PATH!, readFile),
    webhookSecret: e.WEBHOOK_SECRET!,
    // probot's own variables for GitHub Enterprise Server, when GITHUB_API_URL does not say it.
    apiUrl: e.GITHUB_API_URL ?? (e.GHE_HOST ? `${e.GHE_PROTOCOL}://${e.GHE_HOST}/api/v3` : null),
    writeBudget: { perMinute: e.MERGEQ_GITHUB_WRITES_PER_MINUTE, perHour: e.MERGEQ_GITHUB_WRITES_PER_HOUR },
    ...(e.WEBHOOK_PROXY_URL ? { webhookProxyUrl: e.WEBHOOK_PROXY_URL } : {}),
  };
}

function readPrivateKey(path: string, readFile: (path: string) => string): string {
  let key: string;
  try {
    key = readFile(path);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code ?? (err as Error).message;
    throw new ConfigError([`PRIVATE_KEY_PATH cannot be read: ${code} (got ${JSON.stringify(path)})`]);
  }
  if (!looksLikePem(key)) {
    throw new ConfigError([`PRIVATE_KEY_PATH must name a PEM private key file (got ${JSON.stringify(path)})`]);
  }
  return key;
}

function warningsFor(e: ParsedEnv): string[] {
  const warnings: string[] = [];
  const kind = resolveGitHostKind(e);
  const hasKey = e.PRIVATE_KEY !== undefined || e.PRIVATE_KEY_PATH !== undefined;
  if (kind === 'none' && (e.APP_ID !== undefined || hasKey) && e.MERGEQ_GITHOST === undefined) {
    warnings.push(
      `GitHub App settings are incomplete (${e.APP_ID === undefined ? 'APP_ID' : 'PRIVATE_KEY or PRIVATE_KEY_PATH'} is not set), so no git host is used`,
    );
  }
  if (kind !== 'github' && e.WEBHOOK_PROXY_URL !== undefined) warnings.push('WEBHOOK_PROXY_URL is set but no GitHub App is configured, so it is ignored');
  if (kind === 'none') {
    warnings.push('no git host is configured: the API works, and submitted pull requests wait as NOT_READY');
  }
  if (kind === 'sandbox') {
    warnings.push('MERGEQ_GITHOST=sandbox: repositories and CI are simulated in memory; nothing reaches GitHub');
  }
  return warnings;
}
