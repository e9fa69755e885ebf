import { expect } from '@jest/globals';
import { pino, type Logger } from 'pino';
import { LOOPBACK_NETWORKS } from './webhook-receiver.js';
import request from 'supertest';
import type { RepoRef } from '../../src/domain/repo.js';
import { Engine } from '../../src/engine/engine.js';
import { VirtualTime } from '../../src/engine/virtual-time.js';
import { sandboxRoutes } from '../../src/githost/sandbox/routes.js';
import { callerOf } from '../../src/http/auth.js';
import { assertOwnsRepo } from '../../src/service/access/tenancy.js';
import { SandboxGitHost } from '../../src/githost/sandbox/sandbox-host.js';
import { createHttpApp } from '../../src/http/app.js';
import { metricsRenderer } from '../../src/metrics/queue-metrics.js';
import type { CiOptions } from '../../src/githost/sandbox/ci.js';
import { uploadSandboxTestResults } from '../../src/server/sandbox-test-results.js';
import { FlakyTestService } from '../../src/service/flaky/flaky-test-service.js';
import { apiServices } from '../../src/service/api-services.js';
import { MetricsService } from '../../src/service/metrics-service.js';
import { QueueService } from '../../src/service/queue/queue-service.js';
import { openSqliteStore } from '../../src/store/open.js';
import type { Store } from '../../src/store/store.js';
import { seedTenants } from '../http/helpers/test-app.js';

export const MIN = 60_000;

/**
 * The service wired as `mergeq serve` wires it in sandbox mode — SQLite store, the real engine
 * started with its polling, the sandbox git host with its /sandbox routes — with only the wall clock
 * replaced by virtual time. Tests act through HTTP, as a user of the REST API would.
 */
export class SandboxService {
  readonly sandbox: SandboxGitHost;
  readonly engine: Engine;
  readonly app: ReturnType<typeof createHttpApp>;

  private constructor(
    readonly time: VirtualTime,
    readonly store: Store,
    readonly token: string,
    /** A token of another organization (globex), which owns none of acme's repositories. */
    readonly otherOrgToken: string,
    ci: Partial<CiOptions>,
    appLogger: Logger = pino({ level: 'silent' }),
  ) {
    this.sandbox = new SandboxGitHost({ clock: time, scheduler: time, ci });
    const { sandbox } = this;
    const logger = pino({ level: 'silent' });
    this.engine = new Engine({ store, gitHost: sandbox, clock: time, scheduler: time, logger });
    // A CI job uploads its test results before it reports its status (the sandbox CI emits them
    // first): the status of a commit is handed to the engine once that commit's upload is done, so
    // the order does not depend on how long the upload's real I/O takes.
    sandbox.onStatus((e) => {
      const deliver = () => void this.engine.recordStatuses(e.repo, e.sha, e.checks).catch(() => undefined);
      const ahead = [...this.uploads].filter(([, sha]) => sha === e.sha).map(([upload]) => upload);
      if (ahead.length === 0) return deliver();
      const handover = Promise.all(ahead).then(deliver);
      this.handovers.add(handover);
      void handover.finally(() => this.handovers.delete(handover));
    });
    const flakyTestService = new FlakyTestService({
      store,
      clock: time,
      onTestResults: (repo, sha, failedTests) => this.engine.recordTestResults(repo, sha, failedTests),
    });
    uploadSandboxTestResults(sandbox, flakyTestService, store, logger, (upload, sha) => {
      const entry: [Promise<void>, string] = [upload, sha];
      this.uploads.add(entry);
      void upload.finally(() => this.uploads.delete(entry));
    });
    this.app = createHttpApp({
      ...apiServices(store, time, { webhookAllowedNetworks: LOOPBACK_NETWORKS }),
      queueService: new QueueService({ store, gitHost: sandbox, clock: time, notifier: this.engine }),
      flakyTestService,
      renderMetrics: metricsRenderer(new MetricsService(store)),
      logger: appLogger,
      clock: time,
      rateLimit: false,
      sandboxRouter: sandboxRoutes(sandbox, { authorize: (res, repo) => assertOwnsRepo(callerOf(res).org, repo) }),
    });
    this.engine.start();
  }

  /** `ci`: the sandbox CI's options (its test model, `ci.tests`, among them); `dbPath`: a SQLite file (in memory by default); `logger`: the HTTP app's (silent by default). */
  static async start(ci: Partial<CiOptions> = {}, options: { dbPath?: string; logger?: Logger } = {}): Promise<SandboxService> {
    const time = new VirtualTime(Date.UTC(2026, 10, 22, 10, 0, 0));
    const store = await openSqliteStore(options.dbPath ?? ':memory:');
    const tenants = await seedTenants(store, time.now());
    return new SandboxService(time, store, tenants.acme.token, tenants.globex.token, ci, options.logger);
  }

  async stop(): Promise<void> {
    await this.engine.stop();
    await this.store.close();
  }

  api(op: string, body: unknown): request.Test {
    return request(this.app).post(`/v1/${op}`).set('x-api-token', this.token).set('Content-Type', 'application/json').send(JSON.stringify(body));
  }

  /** The operation's answer; a status other than 200 fails the test with the problem body. */
  async ok(op: string, body: unknown): Promise<request.Response> {
    const res = await this.api(op, body);
    expect({ op, status: res.status, problem: res.status === 200 ? null : res.body }).toEqual({ op, status: 200, problem: null });
    return res;
  }

  /** getMergeQueueMetrics for one repository (a GET with query parameters). */
  metrics(repo: RepoRef): request.Test {
    return request(this.app).get('/v1/getMergeQueueMetrics').query({ repo: `${repo.owner}/${repo.name}`, repoHost: repo.host }).set('x-api-token', this.token);
  }

  /** Opens a PR in the sandbox through its /sandbox route. */
  async openPull(repo: RepoRef, title: string, opts: { bad: boolean; ciMinutes: number; stackOn?: number; author?: string }): Promise<{ number: number; headSha: string }> {
    const res = await request(this.app).post('/sandbox/pulls').set('x-api-token', this.token).send({ repo, title, author: 'dev', ...opts });
    expect(res.status).toBe(200);
    return { number: res.body.number as number, headSha: res.body.headSha as string };
  }

  /** The sandbox CI's test result uploads under way, with their commits: real I/O that virtual time must not run past. */
  private readonly uploads = new Set<[Promise<void>, string]>();
  /** Statuses waiting for their commit's upload before they are handed to the engine. */
  private readonly handovers = new Set<Promise<void>>();

  async settle(): Promise<void> {
    for (;;) {
      while (this.uploads.size > 0 || this.handovers.size > 0) await Promise.all([...[...this.uploads].map(([u]) => u), ...this.handovers]);
      await this.engine.whenIdle();
      if (this.uploads.size === 0 && this.handovers.size === 0) return;
    }
  }

  /** Moves virtual time on by whole minutes, letting the engine finish its work after each one. */
  async advanceMinutes(minutes: number): Promise<void> {
    for (let i = 0; i < minutes; i++) {
      await this.time.advanceBy(MIN, () => this.settle());
      await this.settle();
    }
  }
}
