import type { Logger } from 'pino';
import { DEFAULT_LIMITS, type Config } from '../config/config.js';
import { systemClock, type Clock } from '../domain/clock.js';
import { Engine } from '../engine/engine.js';
import { QUEUED_STATUS_AFTER_MS, REPORT_DEBOUNCE_MS } from '../engine/report-timing.js';
import { createHttpApp } from '../http/app.js';
import { metricsRenderer } from '../metrics/queue-metrics.js';
import { ReconcileDurations } from '../metrics/reconcile-durations.js';
import { MergeEstimates } from '../queue-docs/merge-estimates.js';
import { EtaCoverage } from '../service/queue/eta-coverage.js';
import { GitHubCodeOwners } from '../githost/github/codeowners.js';
import { uploadSandboxTestResults } from './sandbox-test-results.js';
import { apiServices } from '../service/api-services.js';
import { FlakyTestService } from '../service/flaky/flaky-test-service.js';
import { MetricsService } from '../service/metrics-service.js';
import { QueueService } from '../service/queue/queue-service.js';
import { RetentionService } from '../service/retention-service.js';
import { openStore } from '../store/open.js';
import type { Store } from '../store/store.js';
import { buildGitHost } from './git-host.js';
import { gitHubWebhooks } from './github-app.js';
import { listen, type HttpListener } from './http-listener.js';
import { createLogger } from './logger.js';
import { startRetention } from './retention-timer.js';
import { localWebhookUrl, startWebhookProxy } from './webhook-proxy.js';
import { WebhookDispatcher } from '../webhooks/dispatcher.js';
import type { WebhookInbox } from '../service/github/webhook-inbox.js';

/** How long requests in flight may take to finish after a shutdown signal (below a 30 s container stop timeout). */
export const SHUTDOWN_GRACE_MS = 20_000;

export interface StartServerOptions {
  logger?: Logger;
  clock?: Clock;
  shutdownGraceMs?: number;
}

export interface RunningServer {
  /** The port actually bound: differs from `config.port` when that is 0 (tests). */
  port: number;
  host: string;
  storeKind: Store['kind'];
  gitHostKind: 'github' | 'sandbox' | 'none';
  /**
   * Stops accepting connections, lets requests and reconciles in flight finish, closes the store.
   * Calling it again returns the same promise.
   */
  stop(): Promise<void>;
}

/**
 * Builds the service from the configuration — store, git host, engine, services, HTTP app — and
 * listens. Fails (and releases what it opened) when any part cannot start.
 */
export async function startServer(config: Config, options: StartServerOptions = {}): Promise<RunningServer> {
  const logger = options.logger ?? createLogger(config.logLevel);
  const clock = options.clock ?? systemClock;
  const limits = config.limits ?? DEFAULT_LIMITS;
  const allowedNetworks = config.webhookAllowedNetworks ?? [];
  for (const warning of config.warnings) logger.warn(warning);

  // Before the store opens: an unusable git host setting should fail without touching the data.
  const { gitHost, sandbox, sandboxRouter, github } = buildGitHost(config.gitHost, clock, logger, limits.bodyTimeoutMs);
  const store = await openStore({ mongodbUri: config.mongodbUri ?? undefined, dataDir: config.dataDir, logger });
  const reconcileDurations = new ReconcileDurations();
  const mergeEstimates = new MergeEstimates(store.queues);
  const etaCoverage = new EtaCoverage((doc) => mergeEstimates.of(doc, clock.now()));
  const engine = new Engine({
    store,
    gitHost,
    clock,
    logger: logger.child({ component: 'engine' }),
    reportDebounceMs: REPORT_DEBOUNCE_MS,
    queuedStatusAfterMs: QUEUED_STATUS_AFTER_MS,
    onReconciled: (queueId, seconds) => reconcileDurations.observe(queueId, seconds),
    onCommitted: (doc) => {
      etaCoverage.observe(doc).catch((err: unknown) => logger.warn({ err, queueId: doc.id }, 'noting the ETA ranges given failed'));
    },
    ...(config.queueLeaseMs === undefined ? {} : { leaseMs: config.queueLeaseMs }),
  });
  const unsubscribeCi = sandbox?.onStatus((event) => {
    engine.recordStatuses(event.repo, event.sha, event.checks).catch((err: unknown) => {
      logger.error({ err, sha: event.sha }, 'recording sandbox CI statuses failed');
    });
  });

  let listener: HttpListener;
  let stopUploads: (() => void) | undefined;
  let inbox: WebhookInbox | undefined;
  try {
    const queueService = new QueueService({ store, gitHost, clock, notifier: engine });
    const webhooks = github && (await gitHubWebhooks(github, { store, queueService, engine, clock, logger, bodyTimeoutMs: limits.bodyTimeoutMs }));
    inbox = webhooks ? webhooks.inbox : undefined;
    const flakyTestService = new FlakyTestService({
      store,
      clock,
      onTestResults: (repo, sha, failedTests) => engine.recordTestResults(repo, sha, failedTests),
      ...(github ? { codeOwners: new GitHubCodeOwners((repo) => github.clients.forRepo(repo)) } : {}),
    });
    if (sandbox) stopUploads = uploadSandboxTestResults(sandbox, flakyTestService, store, logger);
    const app = createHttpApp({
      ...apiServices(store, clock, { webhookAllowedNetworks: allowedNetworks }),
      queueService,
      flakyTestService,
      renderMetrics: metricsRenderer(new MetricsService(store), { reconcileDurations, etaCoverage, ...(github ? { more: github.writeMetrics } : {}) }),
      logger,
      clock,
      rateLimit: limits.ratePerSecond > 0 ? { ratePerSecond: limits.ratePerSecond, burst: limits.rateBurst } : false,
      bodyBounds: { timeoutMs: limits.bodyTimeoutMs, largePerToken: limits.largeBodiesPerToken },
      sandboxRouter,
      ...(webhooks ? { webhooks: webhooks.endpoint } : {}),
    });
    listener = await listen(app, {
      port: config.port,
      host: config.host,
      graceMs: options.shutdownGraceMs ?? SHUTDOWN_GRACE_MS,
      headersTimeoutMs: limits.headersTimeoutMs,
      bodyTimeoutMs: limits.bodyTimeoutMs,
    });
  } catch (err) {
    unsubscribeCi?.();
    stopUploads?.();
    await store.close();
    throw err;
  }
  engine.start();
  // After the engine: deliveries stored before a stop or crash are handled now.
  inbox?.start();
  const dispatcher = new WebhookDispatcher({
    store,
    clock,
    logger: logger.child({ component: 'webhooks' }),
    allowedNetworks,
    ...(config.slackApiUrl ? { slackApiUrl: config.slackApiUrl } : {}),
  });
  dispatcher.start();
  const proxy = config.gitHost.kind === 'github' && config.gitHost.webhookProxyUrl ? await startWebhookProxy(config.gitHost.webhookProxyUrl, localWebhookUrl(listener.host, listener.port), logger) : undefined;
  const stopRetention = startRetention(new RetentionService({ store, historyDays: limits.historyDays }), clock, logger.child({ component: 'retention' }));
  logger.info(
    { host: listener.host, port: listener.port, store: store.kind, gitHost: gitHost.kind },
    `mergeq listening on ${listener.host}:${listener.port}`,
  );

  let stopping: Promise<void> | undefined;
  const server = listener;
  return {
    port: listener.port,
    host: listener.host,
    storeKind: store.kind,
    gitHostKind: gitHost.kind,
    stop() {
      stopping ??= (async () => {
        await proxy?.stop();
        await server.close();
        await stopRetention();
        unsubscribeCi?.();
        stopUploads?.();
        await inbox?.stop();
        await engine.stop();
        await dispatcher.stop();
        await store.close();
        logger.info('mergeq stopped');
      })();
      return stopping;
    },
  };
}
