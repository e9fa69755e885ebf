import { randomUUID } from 'node:crypto';
import nock from 'nock';
import { parseMergeqYml } from '../../src/http/mergeq-yml.js';
import { RepoConfigService } from '../../src/service/repo-settings/repo-config-service.js';
import { ChannelFileRulesService } from '../../src/service/notifications/channel-file-rules.js';
import { pino } from 'pino';
import { Probot } from 'probot';
import type { Org } from '../../src/domain/org.js';
import type { RepoRef } from '../../src/domain/repo.js';
import { Engine } from '../../src/engine/engine.js';
import { VirtualTime } from '../../src/engine/virtual-time.js';
import { GitHubGitHost } from '../../src/githost/github/github-host.js';
import { InstallationClients } from '../../src/githost/github/installation-clients.js';
import { WriteBudget } from '../../src/githost/github/write-budget.js';
import { rateLimitPauseMs, writeBudgetPlugin } from '../../src/githost/github/write-budget-plugin.js';
import { GitHubWriteMetrics } from '../../src/githost/github/write-metrics.js';
import { mergeqApp } from '../../src/github-app/mergeq-app.js';
import { OwnerOrgs } from '../../src/github-app/owner-orgs.js';
import { WriteAccess } from '../../src/github-app/write-access.js';
import type { CreateQueueInput } from '../../src/service/queue/queue-inputs.js';
import { AutoEnqueue } from '../../src/service/queue/auto-enqueue.js';
import { GitHostEvents } from '../../src/service/github/git-host-events.js';
import { OrgService } from '../../src/service/access/org-service.js';
import { QueueService } from '../../src/service/queue/queue-service.js';
import { WebhookDeliveries } from '../../src/service/webhooks/webhook-deliveries.js';
import { openSqliteStore } from '../../src/store/open.js';
import type { Store } from '../../src/store/store.js';
import { FakeGitHub, serveWithNock } from './fake-github.js';
import { TEST_PRIVATE_KEY, TestOctokit } from '../githost/github-test-client.js';

const MIN = 60_000;

export interface HarnessOptions {
  /** The engine's retries of failed GitHub calls (none by default), in virtual time. */
  retryDelaysMs?: number[];
  /** The App's write budget per installation, in virtual time (none by default: writes go at once). */
  writeBudget?: { perMinute: number; perHour: number; hourMs?: number };
  /** How the engine reports on PRs, as `mergeq serve` sets it (default: every state said at once). */
  reports?: { debounceMs: number; queuedStatusAfterMs: number };
}

/**
 * mergeq wired as `mergeq serve` wires it with the GitHub git host — SQLite store, the real engine,
 * the GitHub adapter and the App's handlers — against the stateful fake GitHub, with virtual time.
 * Webhooks are delivered with probot's `receive()`, as its middleware does after checking the signature.
 */
export class AppHarness {
  readonly fake = new FakeGitHub();
  readonly time = new VirtualTime(Date.UTC(2026, 10, 24, 9, 0, 0));
  readonly engine: Engine;
  readonly queueService: QueueService;
  readonly probot: Probot;
  /** The App's writes as the service counts them (with a write budget). */
  readonly writeMetrics: GitHubWriteMetrics;
  /** With a write budget, GitHub writes wait on virtual timers: deliveries and time steps do not wait for the engine to be idle. */
  private readonly budget: WriteBudget | undefined;
  private delivery = 0;
  private commentId = 1000;

  private constructor(
    readonly store: Store,
    options: HarnessOptions,
  ) {
    const clients: InstallationClients = new InstallationClients({ appOctokit: () => this.probot.auth(), installationOctokit: (id) => this.probot.auth(id) });
    this.writeMetrics = new GitHubWriteMetrics((repo) => clients.installationOf(repo));
    const now = () => this.time.nowMillis();
    const budget = (this.budget = options.writeBudget && new WriteBudget({ ...options.writeBudget, now, scheduler: this.time, pauseFor: (e) => rateLimitPauseMs(e, now()), events: this.writeMetrics }));
    if (budget) this.writeMetrics.watch(budget);
    const Octokit = budget ? TestOctokit.plugin(writeBudgetPlugin(budget)) : TestOctokit;
    this.probot = new Probot({ appId: 1, privateKey: TEST_PRIVATE_KEY, secret: 'webhook-secret', Octokit, log: pino({ level: 'silent' }) });
    // A stack merge's polls wait a turn of the event loop, not real time (the fake runs it when polled).
    const stackMergeTiming = { sleep: () => new Promise<void>((resolve) => setImmediate(resolve)), now: () => this.time.nowMillis() };
    const gitHost = new GitHubGitHost({ octokitFor: (repo) => clients.forRepo(repo), stackMergeTiming });
    this.engine = new Engine({ store, gitHost, clock: this.time, scheduler: this.time, logger: pino({ level: 'silent' }), retry: { delaysMs: options.retryDelaysMs ?? [] }, ...(options.reports ? { reportDebounceMs: options.reports.debounceMs, queuedStatusAfterMs: options.reports.queuedStatusAfterMs } : {}) });
    this.queueService = new QueueService({ store, gitHost, clock: this.time, notifier: this.engine });
    const orgs = new OwnerOrgs(new OrgService(store, this.time));
    void this.probot.load(
      mergeqApp(
        { deliveries: new WebhookDeliveries(store.server), queueService: this.queueService, gitHostEvents: new GitHostEvents({ engine: this.engine, gitHost }), autoEnqueue: new AutoEnqueue({ store, gitHost, queueService: this.queueService }), orgs, access: new WriteAccess(60_000, () => this.time.nowMillis()), host: 'github.com', logger: pino({ level: 'silent' }), repoConfig: { parse: parseMergeqYml, service: new RepoConfigService({ store, clock: this.time, newId: randomUUID, notify: (id) => this.engine.notify(id) }), channels: new ChannelFileRulesService({ store, clock: this.time }) } },
        () => this.time.now(),
      ),
    );
  }

  /** `retryDelaysMs`: the engine's retries of failed GitHub calls (none by default), in virtual time. */
  static async start(options: HarnessOptions = {}): Promise<AppHarness> {
    // nock patches node:http for the whole worker process: on for these tests only.
    if (!nock.isActive()) nock.activate();
    nock.disableNetConnect();
    const h = new AppHarness(await openSqliteStore(':memory:'), options);
    serveWithNock(h.fake);
    return h;
  }

  async stop(): Promise<void> {
    // Writes waiting for their turn wait on virtual timers: let time run until the engine is idle.
    for (let i = 0; this.budget && i < 200; i++) {
      const idle = await Promise.race([this.engine.whenIdle().then(() => true), new Promise<boolean>((resolve) => setTimeout(() => resolve(false), 20))]);
      if (idle) break;
      await this.time.advanceBy(10_000);
    }
    await this.engine.stop();
    await this.store.close();
    nock.cleanAll();
    nock.enableNetConnect();
    nock.restore();
  }

  get repo(): RepoRef {
    return { host: 'github.com', owner: this.fake.owner, name: this.fake.name };
  }

  /** Hands a webhook to the App without waiting for anything it starts (a test that holds a write in flight). */
  receive(name: string, payload: Record<string, unknown>, id = `delivery-${++this.delivery}`): Promise<void> {
    return this.probot.receive({ id, name, payload: { installation: { id: this.fake.installationId }, repository: this.fake.repository, ...payload } } as never);
  }

  /** The `issue_comment` payload of a comment on PR `pr` by `login`. */
  commentPayload(pr: number, body: string, login = 'maintainer', onIssue = false): Record<string, unknown> {
    const id = ++this.commentId;
    return {
      action: 'created',
      issue: { number: pr, ...(onIssue ? {} : { pull_request: { url: `https://api.github.com/repos/acme/widgets/pulls/${pr}` } }) },
      comment: { id, body, user: { login, type: 'User' } },
      sender: { login, type: 'User' },
    };
  }

  /** Delivers a webhook; returns its delivery id. */
  async deliver(name: string, payload: Record<string, unknown>, id = `delivery-${++this.delivery}`): Promise<string> {
    const received = this.receive(name, payload, id);
    // A handler may wait for a write's turn (a reply comment): a virtual timer that only moving time fires.
    if (this.budget) await Promise.race([received.catch(() => undefined), new Promise((resolve) => setTimeout(resolve, 500))]);
    else await received;
    await this.settle();
    return id;
  }

  /** A comment on PR `pr` by `login`; returns the comment's id (for its reactions). */
  async comment(pr: number, body: string, login = 'maintainer', opts: { delivery?: string; onIssue?: boolean } = {}): Promise<number> {
    const payload = this.commentPayload(pr, body, login, opts.onIssue);
    await this.deliver('issue_comment', payload, opts.delivery);
    return (payload.comment as { id: number }).id;
  }

  /** A `pull_request` event about the fake's PR `pr` as it is now, sent by `sender`. */
  pullRequestEvent(action: string, pr: number, sender = 'dev', extra: Record<string, unknown> = {}): Promise<string> {
    const pull = this.fake.pulls.get(pr)!;
    return this.deliver('pull_request', { action, number: pr, pull_request: this.fake.pullResource(pull), sender: { login: sender, type: sender.endsWith('[bot]') ? 'Bot' : 'User' }, ...extra });
  }

  /**
   * Delivers the `pull_request` webhooks GitHub sent for what it did on its own since the last call
   * (a PR stacked, retargeted, closed with its base branch, merged), oldest first.
   */
  async deliverGitHubEvents(): Promise<void> {
    for (const { name, payload } of this.fake.takeWebhooks()) await this.deliver(name, { ...payload, sender: { login: 'dev', type: 'User' } });
  }

  /** `login` adds (or removes) label `name` on PR `pr`. */
  label(pr: number, name: string, login: string, action: 'labeled' | 'unlabeled' = 'labeled'): Promise<string> {
    const pull = this.fake.pulls.get(pr)!;
    pull.labels = action === 'labeled' ? [...pull.labels, name] : pull.labels.filter((l) => l !== name);
    return this.pullRequestEvent(action, pr, login, { label: { name } });
  }

  /** `login` approves PR `pr`: the fake's branch protection lets it merge, and the review webhook comes. */
  approve(pr: number, login = 'reviewer'): Promise<string> {
    this.fake.approve(pr, login);
    const pull = this.fake.pulls.get(pr)!;
    return this.deliver('pull_request_review', { action: 'submitted', review: { state: 'approved', user: { login } }, pull_request: this.fake.pullResource(pull), sender: { login, type: 'User' } });
  }

  /** The head of the queue's test branch holding exactly these PRs, in this order. */
  testBranchWith(prs: number[]): string {
    const found = this.fake.branches('mergeq/main/').find((b) => JSON.stringify(this.fake.contentOf(b)) === JSON.stringify(prs));
    if (!found) throw new Error(`no test branch holds ${prs.join(', ')}`);
    return this.fake.refs.get(found)!;
  }

  /** CI reports a commit status on `sha`. */
  ciStatus(sha: string, state: 'pending' | 'success' | 'failure', context = 'ci'): Promise<string> {
    const branches = [...this.fake.refs].filter(([, head]) => head === sha).map(([name]) => ({ name, commit: { sha } }));
    return this.deliver('status', { sha, context, state, target_url: `https://ci.example.com/${sha}`, description: state, branches });
  }

  /** The organization the App created for the account (installing it). */
  async install(): Promise<Org> {
    await this.deliver('installation', {
      action: 'created',
      installation: { id: this.fake.installationId, account: { login: this.fake.owner, type: 'Organization' } },
      repositories: [{ name: this.fake.name, full_name: `${this.fake.owner}/${this.fake.name}` }],
      sender: { login: 'admin', type: 'User' },
    });
    const org = await this.store.orgs.findOrgByOwner(`github.com/${this.fake.owner}`);
    if (!org) throw new Error('installing the App created no organization');
    return org;
  }

  async createQueue(org: Org, settings: Partial<CreateQueueInput> = {}): Promise<void> {
    await this.queueService.createQueue(org, { repo: this.repo, targetBranch: 'main', ...settings });
  }

  async pr(org: Org, number: number) {
    return this.queueService.getSubmittedPullRequest(org, { repo: this.repo, targetBranch: 'main', pr: { number } });
  }

  /** Moves virtual time on by `ms`, letting the engine finish after each timer. */
  async advance(ms: number): Promise<void> {
    await this.time.advanceBy(ms, () => this.settle());
    await this.settle();
  }

  /** Moves virtual time on by whole minutes, letting the engine finish after each. */
  async advanceMinutes(minutes: number): Promise<void> {
    for (let i = 0; i < minutes; i++) {
      await this.time.advanceBy(MIN, () => this.settle());
      await this.settle();
    }
  }

  /**
   * Lets the work under way finish. With a write budget the engine may be waiting for a virtual timer
   * (the next write's turn): then it is as idle as it gets until time moves.
   */
  private async settle(): Promise<void> {
    const budget = this.budget;
    if (!budget) return this.engine.whenIdle();
    const waitingForTime = async () => {
      for (let i = 0; i < 100 && !budget.waitingForTime; i++) await new Promise((resolve) => setTimeout(resolve, 5));
    };
    await Promise.race([this.engine.whenIdle(), waitingForTime()]);
  }
}
