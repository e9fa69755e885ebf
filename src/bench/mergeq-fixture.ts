import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type express from 'express';
import { pino } from 'pino';
import type { Org } from '../domain/org.js';
import { repoKey } from '../domain/repo.js';
import { systemClock } from '../domain/clock.js';
import { NoGitHost } from '../githost/none.js';
import { createHttpApp } from '../http/app.js';
import { metricsRenderer } from '../metrics/queue-metrics.js';
import { createLogger } from '../server/logger.js';
import { apiServices } from '../service/api-services.js';
import { MetricsService } from '../service/metrics-service.js';
import { QueueService, type QueueNotifier } from '../service/queue/queue-service.js';
import { displayPrefix, generateToken, hashToken } from '../service/access/tokens.js';
import { openSqliteStore, SQLITE_FILE } from '../store/open.js';
import { BENCH_BRANCHES, BENCH_REPO, type MergeqFixture } from './ipc.js';
import { seedQueue } from './seed-queue.js';

export interface MergeqBenchApp {
  app: express.Express;
  fixture: MergeqFixture;
  close(): Promise<void>;
}

/**
 * Nothing reconciles: the engine's work (runs, merges) is not what the API benchmark measures, and
 * with no git host it could do nothing. Enqueued PRs therefore stay active.
 */
const inertNotifier: QueueNotifier = { notify() {}, forgetImpactedTargets() {} };

/**
 * The service as `serve` builds it — SQLite file store in a temp dir, the production logger (to
 * /dev/null) — with one organization, one token and the queues the benchmark cases use.
 */
export async function createMergeqBenchApp(opts: { queuedPrs: number; resubmitPrs: number }): Promise<MergeqBenchApp> {
  const dir = mkdtempSync(join(tmpdir(), 'mergeq-bench-api-'));
  const store = await openSqliteStore(join(dir, SQLITE_FILE));
  const clock = systemClock;
  const now = clock.now().toISOString();

  const org: Org = { id: randomUUID(), slug: 'bench', owners: ['github.com/bench'], createdAt: now };
  await store.orgs.createOrg(org);
  const token = generateToken();
  await store.orgs.createToken({
    id: randomUUID(),
    orgId: org.id,
    name: 'bench',
    hash: hashToken(token),
    prefix: displayPrefix(token),
    createdAt: now,
    revokedAt: null,
    lastUsedAt: null,
  });

  const gitHost = new NoGitHost();
  const queueService = new QueueService({ store, gitHost, clock, notifier: inertNotifier });
  for (const targetBranch of Object.values(BENCH_BRANCHES)) {
    await queueService.createQueue(org, { repo: BENCH_REPO, targetBranch });
  }
  await seedQueue({ store, gitHost }, repoKey(BENCH_REPO), BENCH_BRANCHES.resubmit, opts.resubmitPrs);
  await seedQueue({ store, gitHost }, repoKey(BENCH_REPO), BENCH_BRANCHES.getQueue, opts.queuedPrs);

  const app = createHttpApp({
    ...apiServices(store, clock),
    queueService,
    renderMetrics: metricsRenderer(new MetricsService(store)),
    logger: createLogger('info', pino.destination('/dev/null')),
    clock,
    // The limiter stays in the path (its cost is part of a request) but never answers 429 to the load.
    rateLimit: { ratePerSecond: 1e9, burst: 1e9 },
  });

  return {
    app,
    fixture: { token, resubmitPrs: opts.resubmitPrs, queuedPrs: opts.queuedPrs },
    async close() {
      await store.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
