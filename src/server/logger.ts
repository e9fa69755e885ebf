import { hostname } from 'node:os';
import { pino, type DestinationStream, type Logger } from 'pino';
import type { LogLevel } from '../config/config.js';

/**
 * Paths pino blanks out wherever they appear in a log line: request headers that carry tokens, and
 * any field holding a key, secret or token. Redaction is a safety net; code must still not log them.
 */
export const REDACTED_PATHS = [
  'req.headers["x-api-token"]',
  'req.headers.authorization',
  'req.headers.cookie',
  'req.headers["x-hub-signature"]',
  'req.headers["x-hub-signature-256"]',
  'headers["x-api-token"]',
  'headers.authorization',
  'token',
  '*.token',
  'privateKey',
  '*.privateKey',
  'webhookSecret',
  '*.webhookSecret',
  'mongodbUri',
  '*.mongodbUri',
  'config.gitHost.privateKey',
  'config.gitHost.webhookSecret',
  // probot and @octokit/webhooks attach the whole delivery to handler errors and debug lines.
  'err.event',
  'event.payload',
  'event.headers',
  // Body parsers attach the raw request body to their errors; no request body is ever logged.
  'err.body',
  'err.rawBody',
  'req.body',
  'body',
];

/** JSON lines to stdout (or the given stream), at `level`. */
export function createLogger(level: LogLevel, destination?: DestinationStream): Logger {
  const options = {
    level,
    // pid and hostname tell replicas apart when their logs are collected together.
    base: { service: 'mergeq', pid: process.pid, hostname: hostname() },
    timestamp: pino.stdTimeFunctions.isoTime,
    redact: { paths: REDACTED_PATHS, censor: '[redacted]' },
  };
  return destination ? pino(options, destination) : pino(options);
}

export type { Logger };
