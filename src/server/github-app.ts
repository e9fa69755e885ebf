import type { RequestHandler } from 'express';
import type { Logger } from 'pino';
import { Probot } from 'probot';
import type { GitHostConfig } from '../config/config.js';
import type { Clock } from '../domain/clock.js';
import type { Engine } from '../engine/engine.js';
import { webhookEndpoint } from './webhook-endpoint.js';
import { GitHubGitHost } from '../githost/github/github-host.js';
import { InstallationClients } from '../githost/github/installation-clients.js';
import { mergeqApp } from '../github-app/mergeq-app.js';
import { OwnerOrgs } from '../github-app/owner-orgs.js';
import { WriteAccess } from '../github-app/write-access.js';
import { GitHostEvents } from '../service/git-host-events.js';
import { OrgService } from '../service/org-service.js';
import { WebhookDeliveries } from '../service/webhook-deliveries.js';
import { WebhookInbox } from '../service/webhook-inbox.js';
import { unknownInstallation } from './unknown-installation.js';
import type { QueueService } from '../service/queue-service.js';
import type { Store } from '../store/store.js';


/** The GitHub App's parts that exist before the store and the engine: its client and git host. */
export interface GitHubApp {
  probot: Probot;
  clients: InstallationClients;
  gitHost: GitHubGitHost;
  /** The host in repository references: `github.com`, or the GitHub Enterprise host. */
  host: string;
  webhookSecret: string;
}

export function buildGitHubApp(config: Extract<GitHostConfig, { kind: 'github' }>, logger: Logger): GitHubApp {
  const probot = new Probot({
    appId: config.appId,
    privateKey: config.privateKey,
    secret: config.webhookSecret,
    ...(config.apiUrl ? { baseUrl: config.apiUrl } : {}),
    log: logger.child({ component: 'github-app' }),
  });
  const clients = new InstallationClients({
    appOctokit: () => probot.auth(),
    installationOctokit: (id) => probot.auth(id),
  });
  const gitHost = new GitHubGitHost({ octokitFor: (repo) => clients.forRepo(repo) });
  return { probot, clients, gitHost, host: repoHost(config.apiUrl), webhookSecret: config.webhookSecret };
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
    deliveries: new WebhookDeliveries(deps.store),
    queueService: deps.queueService,
    gitHostEvents: new GitHostEvents({ engine: deps.engine, gitHost: app.gitHost }),
    orgs: new OwnerOrgs(new OrgService(deps.store, deps.clock)),
    access: new WriteAccess(),
    host: app.host,
    logger: deps.logger,
    onInstallationRepo: (repo, id) => app.clients.remember(repo, id),
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
