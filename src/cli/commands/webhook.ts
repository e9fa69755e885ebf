import type { Command } from 'commander';
import { refNameProblem } from '../../domain/ref-name.js';
import type { RepoRef } from '../../domain/repo.js';
import { VERDICT_CODES, type VerdictCode } from '../../domain/verdict/verdict.js';
import { DELIVERY_STATUSES, SUBSCRIPTION_FORMATS, type DeliveryStatus, type SubscriptionFormat } from '../../domain/webhook-delivery.js';
import { ServiceError } from '../../service/errors.js';
import { OrgService } from '../../service/access/org-service.js';
import { WebhookService, type WebhookRecord } from '../../service/webhooks/webhook-service.js';
import type { CliContext } from '../cli-context.js';
import { formatTable } from '../format-table.js';
import { withStore } from '../with-store.js';

const EVENTS_HELP = 'comma-separated event types or groups, e.g. "pull_request.*,queue.state_changed" or "*" (docs/webhooks.md)';

function usage(path: string, message: string): ServiceError {
  return new ServiceError(400, 'invalid_request', 'Invalid request', `${path}: ${message}`, [{ path, message }]);
}

function parseEvents(text: string): string[] {
  return text.split(',').map((e) => e.trim()).filter((e) => e !== '');
}

function parseRepo(text: string): RepoRef {
  const parts = text.split('/');
  if (parts.length !== 3 || parts.some((p) => p === '')) throw usage('--repo', 'expected host/owner/name, e.g. github.com/acme/widgets');
  const [host, owner, name] = parts as [string, string, string];
  return { host, owner, name };
}

function parseBranch(text: string): string {
  const problem = refNameProblem(text);
  if (problem) throw usage('--branch', problem);
  return text;
}

function parseFormat(text: string): SubscriptionFormat {
  const format = text.toLowerCase();
  if (!(SUBSCRIPTION_FORMATS as readonly string[]).includes(format)) throw usage('--format', `expected ${SUBSCRIPTION_FORMATS.join(' or ')}`);
  return format as SubscriptionFormat;
}

function parseVerdicts(text: string): VerdictCode[] {
  const codes = text.split(',').map((v) => v.trim().toLowerCase()).filter((v) => v !== '');
  for (const c of codes) if (!(VERDICT_CODES as readonly string[]).includes(c)) throw usage('--verdicts', `expected some of ${VERDICT_CODES.join(', ')}`);
  return codes as VerdictCode[];
}

/** `--mention octocat=U024BE7LH` (repeatable): GitHub login → chat user. */
function collectMention(text: string, previous: Record<string, string> = {}): Record<string, string> {
  const at = text.indexOf('=');
  if (at <= 0 || at === text.length - 1) throw usage('--mention', 'expected <github-login>=<chat user>, e.g. octocat=U024BE7LH');
  return { ...previous, [text.slice(0, at).trim()]: text.slice(at + 1).trim() };
}

const FORMAT_HELP = 'standard (signed JSON), slack (a short line for merged, failed, cancelled), or a chat channel: slack_blocks (Slack incoming webhook) or teams (Teams Workflows webhook), docs/notifications.md';
const VERDICTS_HELP = 'chat channels: the verdicts sent, comma-separated (default culprit): culprit, bystander, flaky, infrastructure, conflict, policy, manual';
const MENTION_HELP = 'chat channels: <github-login>=<chat user> to mention the author (a Slack member id U…, a Teams user e-mail); repeatable';

const NAME_HELP = 'what .github/mergeq.yml calls the channel by (lower-case letters, digits, ".", "_", "-"; unique in the organization), docs/notifications.md';
const BOT_TOKEN_HELP =
  'slack_blocks channels: the name of an environment variable holding a Slack bot token (xoxb-…, scope chat:write), so the author mapped by --mention ' +
  'also gets a direct message; read from the environment, so the secret stays out of the shell history and the process list; never printed';

/** The Slack bot token in the environment variable `--slack-bot-token-env` names. */
function botTokenFrom(ctx: CliContext, name: string): string {
  const value = ctx.io.env[name]?.trim();
  if (!value) throw usage('--slack-bot-token-env', `the environment variable ${name} is not set (export ${name}=xoxb-… first)`);
  return value;
}

function parseStatus(text: string): DeliveryStatus {
  if (!(DELIVERY_STATUSES as readonly string[]).includes(text)) throw usage('--status', `expected ${DELIVERY_STATUSES.join(', ')}`);
  return text as DeliveryStatus;
}

/** Opens the store and runs `fn` with the organization named by --org and the webhook service. */
function withOrg(ctx: CliContext, slug: string, fn: (args: { service: WebhookService; org: Awaited<ReturnType<OrgService['getOrg']>> }) => Promise<void>) {
  return withStore(ctx.config(), ctx.io, async (store) => {
    const org = await new OrgService(store, ctx.clock).getOrg(slug);
    const service = new WebhookService({ store, clock: ctx.clock, allowedNetworks: ctx.config().webhookAllowedNetworks ?? [] });
    await fn({ service, org });
  });
}

function printHook(ctx: CliContext, hook: WebhookRecord): void {
  ctx.io.stdout.write(`${JSON.stringify(hook, null, 2)}\n`);
}

export function registerWebhook(program: Command, ctx: CliContext): void {
  const webhook = program
    .command('webhook')
    .description("Administer an organization's outbound webhooks: `webhook create|list|update|delete|deliveries|redeliver` (docs/webhooks.md).");

  webhook
    .command('create')
    .description(
      'Subscribe a URL (https at a public address; see MERGEQ_WEBHOOK_ALLOWED_NETWORKS) to events. Prints only the signing secret (whsec_…) on stdout, so it ' +
        'can be captured: SECRET=$(mergeq webhook create --org acme --url … --events "*"). It is shown once.',
    )
    .requiredOption('--org <slug>', 'the organization')
    .requiredOption('--url <url>', 'where events are POSTed')
    .requiredOption('--events <list>', EVENTS_HELP)
    .option('--format <format>', FORMAT_HELP, 'standard')
    .option('--repo <host/owner/name>', 'only events of this repository')
    .option('--branch <name>', 'only events of queues of this branch')
    .option('--description <text>', 'a note for people')
    .option('--name <name>', NAME_HELP)
    .option('--verdicts <list>', VERDICTS_HELP)
    .option('--mention <login=user>', MENTION_HELP, collectMention)
    .option('--slack-bot-token-env <name>', BOT_TOKEN_HELP)
    .option('--json', 'print the whole webhook record (with the secret) as JSON')
    .action(async (o: { org: string; url: string; events: string; format: string; repo?: string; branch?: string; description?: string; name?: string; verdicts?: string; mention?: Record<string, string>; slackBotTokenEnv?: string; json?: boolean }) => {
      await withOrg(ctx, o.org, async ({ service, org }) => {
        const created = await service.create(org, {
          url: o.url,
          events: parseEvents(o.events),
          format: parseFormat(o.format),
          repo: o.repo ? parseRepo(o.repo) : null,
          branch: o.branch ? parseBranch(o.branch) : null,
          description: o.description ?? null,
          ...(o.name !== undefined ? { name: o.name } : {}),
          ...(o.verdicts !== undefined ? { verdicts: parseVerdicts(o.verdicts) } : {}),
          ...(o.mention !== undefined ? { mentions: o.mention } : {}),
          ...(o.slackBotTokenEnv !== undefined ? { slackBotToken: botTokenFrom(ctx, o.slackBotTokenEnv) } : {}),
        });
        if (o.json) ctx.io.stdout.write(`${JSON.stringify(created, null, 2)}\n`);
        else ctx.io.stdout.write(`${created.secret}\n`);
        ctx.io.stderr.write(`Created webhook ${created.id} for ${o.org}. Store the secret now: it cannot be shown again.\n`);
      });
    });

  webhook
    .command('list')
    .description("List an organization's webhooks (never their secrets), with why one was disabled.")
    .requiredOption('--org <slug>', 'the organization')
    .option('--json', 'print a JSON array instead of a table')
    .action(async (o: { org: string; json?: boolean }) => {
      await withOrg(ctx, o.org, async ({ service, org }) => {
        const { webhooks } = await service.list(org);
        if (o.json) return void ctx.io.stdout.write(`${JSON.stringify(webhooks, null, 2)}\n`);
        if (webhooks.length === 0) return void ctx.io.stderr.write(`Organization ${o.org} has no webhooks. Create one with: mergeq webhook create --org ${o.org} --url … --events "*"\n`);
        const rows = webhooks.map((w) => [w.id, w.name ?? '-', w.url, w.format, w.events.join(','), w.directMessages ? 'yes' : '-', w.enabled ? 'yes' : 'no', w.disabledReason ?? '-']);
        ctx.io.stdout.write(formatTable(['ID', 'NAME', 'URL', 'FORMAT', 'EVENTS', 'SLACK DMS', 'ENABLED', 'DISABLED BECAUSE'], rows));
      });
    });

  webhook
    .command('update <id>')
    .description('Change a webhook; options left out stay unchanged. --enable clears why it was disabled.')
    .requiredOption('--org <slug>', 'the organization')
    .option('--url <url>', 'where events are POSTed')
    .option('--events <list>', EVENTS_HELP)
    .option('--format <format>', FORMAT_HELP)
    .option('--name <name>', `${NAME_HELP}; "" removes it`)
    .option('--verdicts <list>', VERDICTS_HELP)
    .option('--mention <login=user>', `${MENTION_HELP}; replaces the whole map`, collectMention)
    .option('--slack-bot-token-env <name>', `${BOT_TOKEN_HELP}; replaces the channel's token`)
    .option('--remove-slack-bot-token', 'slack_blocks channels: forget the bot token (no more direct messages)')
    .option('--enable', 'send deliveries again')
    .option('--disable', 'stop sending deliveries')
    .option('--rotate-secret', 'replace the signing secret and print the new one on stdout')
    .action(async (id: string, o: { org: string; url?: string; events?: string; format?: string; name?: string; verdicts?: string; mention?: Record<string, string>; slackBotTokenEnv?: string; removeSlackBotToken?: boolean; enable?: boolean; disable?: boolean; rotateSecret?: boolean }) => {
      if (o.enable && o.disable) throw usage('--enable', 'give --enable or --disable, not both');
      if (o.slackBotTokenEnv !== undefined && o.removeSlackBotToken) throw usage('--slack-bot-token-env', 'give --slack-bot-token-env or --remove-slack-bot-token, not both');
      await withOrg(ctx, o.org, async ({ service, org }) => {
        const updated = await service.update(org, {
          id,
          ...(o.url !== undefined ? { url: o.url } : {}),
          ...(o.events !== undefined ? { events: parseEvents(o.events) } : {}),
          ...(o.format !== undefined ? { format: parseFormat(o.format) } : {}),
          ...(o.name !== undefined ? { name: o.name === '' ? null : o.name } : {}),
          ...(o.verdicts !== undefined ? { verdicts: parseVerdicts(o.verdicts) } : {}),
          ...(o.mention !== undefined ? { mentions: o.mention } : {}),
          ...(o.slackBotTokenEnv !== undefined ? { slackBotToken: botTokenFrom(ctx, o.slackBotTokenEnv) } : o.removeSlackBotToken ? { slackBotToken: null } : {}),
          ...(o.enable ? { enabled: true } : o.disable ? { enabled: false } : {}),
          ...(o.rotateSecret ? { rotateSecret: true } : {}),
        });
        if (updated.secret) ctx.io.stdout.write(`${updated.secret}\n`);
        else printHook(ctx, updated);
      });
    });

  webhook
    .command('delete <id>')
    .description('Delete a webhook and its delivery log.')
    .requiredOption('--org <slug>', 'the organization')
    .action(async (id: string, o: { org: string }) => {
      await withOrg(ctx, o.org, async ({ service, org }) => {
        const { deleted } = await service.delete(org, id);
        ctx.io.stderr.write(deleted ? `Deleted webhook ${id}.\n` : `No webhook ${id} in ${o.org}; nothing deleted.\n`);
      });
    });

  webhook
    .command('deliveries')
    .description('The delivery log, newest first: event, status, attempts, last response code.')
    .requiredOption('--org <slug>', 'the organization')
    .option('--webhook <id>', 'only deliveries of this webhook')
    .option('--status <status>', `only ${DELIVERY_STATUSES.join(' | ')}`)
    .option('--limit <n>', 'how many (1-100)', '25')
    .option('--json', 'print JSON instead of a table')
    .action(async (o: { org: string; webhook?: string; status?: string; limit: string; json?: boolean }) => {
      const limit = Number(o.limit);
      if (!Number.isInteger(limit) || limit < 1 || limit > 100) throw usage('--limit', 'must be an integer from 1 to 100');
      await withOrg(ctx, o.org, async ({ service, org }) => {
        const page = await service.deliveries(org, {
          ...(o.webhook ? { webhookId: o.webhook } : {}),
          ...(o.status ? { status: parseStatus(o.status) } : {}),
          pageSize: limit,
          pageToken: '',
        });
        if (o.json) return void ctx.io.stdout.write(`${JSON.stringify(page, null, 2)}\n`);
        const rows = page.deliveries.map((d) => [d.id, d.eventType, d.status, String(d.attempts), d.responseStatus === null ? '-' : String(d.responseStatus), d.lastError ?? '-']);
        ctx.io.stdout.write(formatTable(['ID', 'EVENT', 'STATUS', 'ATTEMPTS', 'LAST CODE', 'LAST ERROR'], rows));
        ctx.io.stderr.write(`${page.deliveries.length} of ${page.page.total_rows} deliveries.\n`);
      });
    });

  webhook
    .command('redeliver <delivery-id>')
    .description('Send a delivery again, from the start of the retry schedule (by the running server).')
    .requiredOption('--org <slug>', 'the organization')
    .action(async (id: string, o: { org: string }) => {
      await withOrg(ctx, o.org, async ({ service, org }) => {
        const d = await service.redeliver(org, id);
        ctx.io.stderr.write(`Delivery ${d.id} (${d.eventType}) will be sent again.\n`);
      });
    });
}
