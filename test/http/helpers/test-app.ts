import { randomUUID } from 'node:crypto';
import { Writable } from 'node:stream';
import type express from 'express';
import { pino, type Logger } from 'pino';
import type { ApiToken, Org } from '../../../src/domain/org.js';
import type { Clock } from '../../../src/domain/clock.js';
import type { GitHost } from '../../../src/githost/githost.js';
import { NoGitHost } from '../../../src/githost/none.js';
import { createHttpApp, type HttpDeps } from '../../../src/http/app.js';
import type { RateLimitOptions } from '../../../src/http/rate-limit.js';
import { metricsRenderer } from '../../../src/metrics/queue-metrics.js';
import { apiServices } from '../../../src/service/api-services.js';
import { MetricsService } from '../../../src/service/metrics-service.js';
import { QueueService } from '../../../src/service/queue/queue-service.js';
import { displayPrefix, generateToken, hashToken } from '../../../src/service/access/tokens.js';
import { openSqliteStore } from '../../../src/store/open.js';
import type { Store } from '../../../src/store/store.js';
import { LOOPBACK_NETWORKS } from '../../e2e/webhook-receiver.js';

/** Time that moves only when a test says so. */
export class TestClock implements Clock {
  constructor(public ms: number = Date.UTC(2026, 10, 22, 10, 0, 0)) {}
  now(): Date {
    return new Date(this.ms);
  }
  advance(ms: number): void {
    this.ms += ms;
  }
}

/** Records which queues the service asked the engine to reconcile. */
export class RecordingNotifier {
  readonly calls: string[] = [];
  /** `repoKey#pr@sha` of target lists the engine was told to drop from its cache. */
  readonly forgotten: string[] = [];
  notify(queueId: string): void {
    this.calls.push(queueId);
  }
  forgetImpactedTargets(repoKey: string, prNumber: number, sha: string): void {
    this.forgotten.push(`${repoKey}#${prNumber}@${sha}`);
  }
}

export interface TestTenant {
  org: Org;
  token: string;
  tokenId: string;
}

export interface TestApp {
  app: express.Express;
  store: Store;
  clock: TestClock;
  notifier: RecordingNotifier;
  queueService: QueueService;
  /** Owns github.com/acme and github.com/acme-labs. */
  acme: TestTenant;
  /** Owns github.com/globex. */
  globex: TestTenant;
  /** A token of acme that was revoked. */
  revokedToken: string;
  /** Every log line the app wrote, as parsed JSON. */
  logLines: () => Record<string, unknown>[];
  rawLog: () => string;
  close(): Promise<void>;
}

/** acme (owning github.com/acme and github.com/acme-labs), globex, and a revoked token of acme. */
export async function seedTenants(store: Store, now: Date): Promise<{ acme: TestTenant; globex: TestTenant; revokedToken: string }> {
  const createdAt = now.toISOString();
  async function tenant(slug: string, owners: string[]): Promise<TestTenant> {
    const org: Org = { id: randomUUID(), slug, owners, createdAt };
    await store.orgs.createOrg(org);
    const token = generateToken();
    const tokenId = randomUUID();
    await store.orgs.createToken(apiToken(tokenId, org.id, token, createdAt));
    return { org, token, tokenId };
  }
  const acme = await tenant('acme', ['github.com/acme', 'github.com/acme-labs']);
  const globex = await tenant('globex', ['github.com/globex']);
  const revokedToken = generateToken();
  const revokedId = randomUUID();
  await store.orgs.createToken(apiToken(revokedId, acme.org.id, revokedToken, createdAt));
  await store.orgs.revokeToken(revokedId, createdAt);
  return { acme, globex, revokedToken };
}

/** A pino logger writing into memory. */
export function memoryLogger(): { logger: Logger; text: () => string } {
  const chunks: string[] = [];
  const logger = pino(
    { level: 'info' },
    new Writable({
      write(chunk, _enc, done) {
        chunks.push(String(chunk));
        done();
      },
    }),
  );
  return { logger, text: () => chunks.join('') };
}

export async function createTestApp(
  options: {
    gitHost?: GitHost;
    rateLimit?: RateLimitOptions | false;
    http?: Pick<HttpDeps, 'sandboxRouter' | 'webhooks' | 'bodyBounds'>;
    /** Where outbound webhooks may go besides public addresses; loopback (the test receivers) unless given. */
    webhookAllowedNetworks?: string[];
  } = {},
): Promise<TestApp> {
  const store = await openSqliteStore(':memory:');
  const clock = new TestClock();
  const notifier = new RecordingNotifier();
  const log = memoryLogger();
  const { acme, globex, revokedToken } = await seedTenants(store, clock.now());

  const queueService = new QueueService({ store, gitHost: options.gitHost ?? new NoGitHost(), clock, notifier });
  const app = createHttpApp({
    ...apiServices(store, clock, { webhookAllowedNetworks: options.webhookAllowedNetworks ?? LOOPBACK_NETWORKS }),
    queueService,
    renderMetrics: metricsRenderer(new MetricsService(store)),
    logger: log.logger,
    clock,
    // Test time stands still, so a bucket would never refill: limits only where a test asks for them.
    rateLimit: options.rateLimit ?? false,
    ...options.http,
  });
  return {
    app,
    store,
    clock,
    notifier,
    queueService,
    acme,
    globex,
    revokedToken,
    rawLog: log.text,
    logLines: () =>
      log
        .text()
        .split('\n')
        .filter((l) => l.trim() !== '')
        .map((l) => JSON.parse(l) as Record<string, unknown>),
    close: () => store.close(),
  };
}

function apiToken(id: string, orgId: string, token: string, createdAt: string): ApiToken {
  return { id, orgId, name: 'test', hash: hashToken(token), prefix: displayPrefix(token), createdAt, revokedAt: null, lastUsedAt: null };
}
