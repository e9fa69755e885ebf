import { randomUUID } from 'node:crypto';
import type { RequestHandler } from 'express';
import { parseMergeqYml } from '../http/mergeq-yml.js';
import { RepoConfigService } from '../service/repo-settings/repo-config-service.js';
import { ChannelFileRulesService } from '../service/notifications/channel-file-rules.js';
import type { Logger } from 'pino';
import { Probot, ProbotOctokit } from 'probot';
import type { GitHostConfig } from '../config/config.js';
import { realScheduler, type Scheduler } from '../domain/scheduler.js';
import { GITHUB_WRITE_LIMITS, WriteBudget } from '../githost/github/write-budget.js';
import { rateLimitPauseMs, writeBudgetPlugin } from '../githost/github/write-budget-plugin.js';
import { GitHubWriteMetrics } from '../githost/github/write-metrics.js';
import type { Clock } from '../domain/clock.js';
import type { Engine } from '../engine/engine.js';
import { webhookEndpoint } from '../github-app/webhook-endpoint.js';
import { GitHubGitHost } from '../githost/github/github-host.js';
import { InstallationClients } from '../githost/github/installation-clients.js';
import { mergeqApp } from '../github-app/mergeq-app.js';
import { OwnerOrgs } from '../github-app/owner-orgs.js';
import { WriteAccess } from '../github-app/write-access.js';
import { AutoEnqueue } from '../service/queue/auto-enqueue.js';
import { GitHostEvents } from '../service/github/git-host-events.js';
import { OrgService } from '../service/access/org-service.js';
import { WebhookDeliveries } from '../service/webhooks/webhook-deliveries.js';
import { WebhookInbox } from '../service/github/webhook-inbox.js';
import { unknownInstallation } from './unknown-installation.js';
import type { QueueService } from '../service/queue/queue-service.js';
import type { Store } from '../store/store.js';


/** The GitHub App's parts that exist before the store and the engine: its client and git host. */
export interface GitHubApp {
  probot: Probot;
  clients: InstallationClients;
  gitHost: GitHubGitHost;
  /** The host in repository references: `github.com`, or the GitHub Enterprise host. */
  host: string;
  webhookSecret: string;
  /** The App's writes, for the metrics operation. */
  writeMetrics: GitHubWriteMetrics;
}

/**
 * With a write budget (the default: GitHub's 80 a minute and 500 an hour per installation), every
 * write of an installation client goes through it, and probot's own throttling, which neither orders
 * writes nor waits out a secondary limit, is off. Without one (both limits 0, as on GitHub Enterprise
 * Server without rate limits), probot's throttling spaces writes as before.
 */
export function buildGitHubApp(
  config: Extract<GitHostConfig, { kind: 'github' }>,
  logger: Logger,
  time: { scheduler: Scheduler; now: () => number } = { scheduler: realScheduler, now: Date.now },
): GitHubApp {
  const limits = config.writeBudget ?? GITHUB_WRITE_LIMITS;
  const writeMetrics: GitHubWriteMetrics = new GitHubWriteMetrics((repo) => clients.installationOf(repo));
  const budget: WriteBudget | null =
    limits.perMinute > 0 || limits.perHour > 0
      ? new WriteBudget({ ...limits, ...time, pauseFor: (error) => rateLimitPauseMs(error, time.now()), events: writeMetrics })
      : null;
  if (budget) writeMetrics.watch(budget);
  const probot: Probot = new Probot({
    appId: config.appId,
    privateKey: config.privateKey,
    secret: config.webhookSecret,
    ...(budget
      ? { Octokit: ProbotOctokit.plugin(writeBudgetPlugin(budget)).defaults((o: { throttle?: object }) => ({ ...o, throttle: { ...o.throttle, enabled: false } })) }
      : {}),
    ...(config.apiUrl ? { baseUrl: config.apiUrl } : {}),
    log: logger.child({ component: 'github-app' }),
  });
  const clients = new InstallationClients({
    appOctokit: () => probot.auth(),
    installationOctokit: (id) => probot.auth(id),
  });
  const gitHost = new GitHubGitHost({ octokitFor: (repo) => clients.forRepo(repo) });
  return { probot, clients, gitHost, host: repoHost(config.apiUrl), webhookSecret: config.webhookSecret, writeMetrics };
}

/**
 * The webhook endpoint, which verifies signatures and stores deliveries in the inbox, and the inbox,
 * which hands them to the App's handlers (loaded into probot) once answered; the caller starts it.
 */
export async function gitHubWebhooks(
  app: GitHubApp,
  deps: { store: Store; queueService: QueueService; engine: Engine; clock: Clock; logger: Logger; bodyTimeoutMs: number },
): Promise<{ endpoint: RequestHandler; inbox: WebhookInbox }> {
  const appFn = mergeqApp({
    deliveries: new WebhookDeliveries(deps.store.server),
    queueService: deps.queueService,
    gitHostEvents: new GitHostEvents({ engine: deps.engine, gitHost: app.gitHost }),
    autoEnqueue: new AutoEnqueue({ store: deps.store, gitHost: app.gitHost, queueService: deps.queueService }),
    orgs: new OwnerOrgs(new OrgService(deps.store, deps.clock)),
    access: new WriteAccess(),
    host: app.host,
    logger: deps.logger,
    onInstallationRepo: (repo, id) => app.clients.remember(repo, id),
    repoConfig: {
      parse: parseMergeqYml,
      service: new RepoConfigService({ store: deps.store, clock: deps.clock, newId: randomUUID, notify: (id) => deps.engine.notify(id) }),
      channels: new ChannelFileRulesService({ store: deps.store, clock: deps.clock }),
    },
  }, () => deps.clock.now());
  await app.probot.load(appFn);
  const logger = deps.logger.child({ component: 'webhooks' });
  const inbox = new WebhookInbox({
    store: deps.store,
    clock: deps.clock,
    logger,
    handle: (delivery) => app.probot.receive(delivery as Parameters<Probot['receive']>[0]),
    ignoredBecause: unknownInstallation,
  });
  const endpoint = webhookEndpoint({ secret: app.webhookSecret, receive: (delivery) => inbox.accept(delivery), logger, bodyTimeoutMs: deps.bodyTimeoutMs });
  return { endpoint, inbox };
}

/** github.com for api.github.com; else the API host without a leading `api.` (GitHub Enterprise). */
export function repoHost(apiUrl: string | null): string {
  if (!apiUrl) return 'github.com';
  return new URL(apiUrl).host.replace(/^api\./, '');
}
