import type { WriteBudgetLimits } from '../githost/github/write-budget.js';

/** The service's configuration, as validated from the environment by `loadConfig`. */

export const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

export const GIT_HOST_KINDS = ['github', 'sandbox', 'none'] as const;
export type GitHostKind = (typeof GIT_HOST_KINDS)[number];

export type GitHostConfig =
  | { kind: 'none' }
  | { kind: 'sandbox' }
  | {
      kind: 'github';
      appId: number;
      /** PEM text, from PRIVATE_KEY or read from PRIVATE_KEY_PATH. */
      privateKey: string;
      webhookSecret: string;
      /** GitHub Enterprise or another API-compatible host; null for api.github.com. */
      apiUrl: string | null;
      /** The App's writes per installation (GitHub's secondary limits); absent: 80 and 500, 0: no limit. */
      writeBudget?: WriteBudgetLimits;
      /** WEBHOOK_PROXY_URL: a smee.io channel whose events are forwarded to the webhook endpoint (a laptop); absent: none. */
      webhookProxyUrl?: string;
    };

/** Bounds on what clients may send (docs/configuration.md, "Request limits"). */
export interface Limits {
  /** Requests per second per API token, and per client address for unauthenticated traffic; 0: no limit. */
  ratePerSecond: number;
  rateBurst: number;
  headersTimeoutMs: number;
  bodyTimeoutMs: number;
  largeBodiesPerToken: number;
  /** Ended entries and runs older than this many days are deleted. */
  historyDays: number;
}

export const DEFAULT_LIMITS: Limits = {
  ratePerSecond: 50,
  rateBurst: 200,
  headersTimeoutMs: 10_000,
  bodyTimeoutMs: 60_000,
  largeBodiesPerToken: 2,
  historyDays: 90,
};

export interface Config {
  port: number;
  host: string;
  /** Absolute path of the folder holding the embedded SQLite database. */
  dataDir: string;
  /** Selects MongoDB instead of the embedded SQLite store. */
  mongodbUri: string | null;
  logLevel: LogLevel;
  gitHost: GitHostConfig;
  /** Absent in older callers: DEFAULT_LIMITS. */
  limits?: Limits;
  /**
   * How long a replica's lease on a queue lasts unless renewed: how long a replica that died keeps its
   * queues waiting. Absent: the engine's default (30 s).
   */
  queueLeaseMs?: number;
  /**
   * Networks (CIDRs) outbound webhooks may reach besides public addresses, e.g. a self-hosted
   * install's own 10.0.0.0/8. Absent: none.
   */
  webhookAllowedNetworks?: string[];
  /**
   * Slack's Web API base URL for chat channels' direct messages: https://slack.com/api/ when absent.
   * For tests and self-hosted proxies; reached through the same SSRF guard as every receiver.
   */
  slackApiUrl?: string;
  /** Settings that are valid but probably not what was meant; logged at start-up. */
  warnings: string[];
}
