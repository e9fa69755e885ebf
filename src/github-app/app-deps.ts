import type { Logger } from 'pino';
import type { RepoRef } from '../domain/repo.js';
import type { AutoEnqueue } from '../service/queue/auto-enqueue.js';
import type { GitHostEvents } from '../service/github/git-host-events.js';
import type { QueueService } from '../service/queue/queue-service.js';
import type { WebhookDeliveries } from '../service/webhooks/webhook-deliveries.js';
import type { OwnerOrgs } from './owner-orgs.js';
import type { RepoConfigService } from '../service/repo-settings/repo-config-service.js';
import type { ChannelFileRulesService } from '../service/notifications/channel-file-rules.js';
import type { RepoConfigParse } from '../service/repo-settings/repo-config.js';
import type { WriteAccess } from './write-access.js';

/** What the GitHub App's handlers use: the same queue service as the REST API, and the git host's events. */
export interface AppDeps {
  deliveries: WebhookDeliveries;
  queueService: QueueService;
  gitHostEvents: GitHostEvents;
  /** The queue's enqueue label and auto-enqueue rules (queue-labels.md). */
  autoEnqueue: AutoEnqueue;
  orgs: OwnerOrgs;
  access: WriteAccess;
  /** The host in repository references: `github.com`, or the GitHub Enterprise host. */
  host: string;
  logger: Logger;
  /** Called with each repository an installation event names (primes installation lookups). */
  onInstallationRepo?: (repo: RepoRef, installationId: number) => void;
  /** `.github/mergeq.yml` (docs/mergeq-yml.md); absent: the file is not read. */
  repoConfig?: RepoConfigDeps;
}

/** A repository as webhook payloads name it (`owner/name`; some payloads may omit the owner object). */
export function repoOf(host: string, repository: { name: string; full_name: string }): RepoRef {
  const owner = repository.full_name.slice(0, repository.full_name.length - repository.name.length - 1);
  return { host, owner, name: repository.name };
}

/** `.github/mergeq.yml` for the App: its reader (the HTTP layer's schema) and the service applying it. */
export interface RepoConfigDeps {
  parse: (text: string) => RepoConfigParse;
  service: RepoConfigService;
  /** The file's `channels` (docs/notifications.md); absent: they are not applied. */
  channels?: ChannelFileRulesService;
}
