import { createHmac, randomUUID } from 'node:crypto';
import type { FakeGitHub, Reply } from './fake-github.js';

/** One delivery as GitHub's `GET /app/hook/deliveries` lists it. */
export interface FakeDelivery {
  id: number;
  guid: string;
  event: string;
  status_code: number;
  status: string;
  delivered_at: string;
  installation_id: number;
  repository_id: number;
}

/** How the target branch is protected, as far as the App's fast-forward is concerned. */
export type TargetProtection = 'none' | 'ruleset_with_bypass' | 'ruleset_without_bypass';

const RULESET_ID = 11;

/**
 * What `mergeq doctor` asks of GitHub beyond the repository the fake GitHub keeps: the App and its
 * installation (permissions, events), the App's webhook (its URL, and deliveries really POSTed there,
 * signed, and recorded with the answer's status), the repository (its default branch), the target's
 * protection (a ruleset the App may bypass or not), new commits (`POST /git/commits`), and CI that
 * reports a status on the branches it runs on. Each can be broken on its own.
 */
export class FakeGitHubApp {
  readonly appId = 1;
  readonly slug = 'mergeq';
  readonly repositoryId = 4242;
  /** The installation's permissions; defaults: the ones app.yml asks for. */
  permissions: Record<string, string> = {
    contents: 'write',
    pull_requests: 'write',
    issues: 'write',
    statuses: 'write',
    checks: 'write',
    administration: 'read',
    metadata: 'read',
  };
  events = ['issue_comment', 'pull_request', 'pull_request_review', 'status', 'check_run', 'check_suite', 'push'];
  /** Installed on the repository at all. */
  installed = true;
  /** The App's webhook URL; null: none set. */
  hookUrl: string | null = null;
  hookSecret = 'hook-secret';
  readonly deliveries: FakeDelivery[] = [];
  /** Branches CI runs on: a push there gets a `ci` success status a moment later. */
  ciBranches: RegExp = /^(main|mergeq\/.+)$/;
  protection: TargetProtection = 'ruleset_with_bypass';
  private readonly pendingDeliveries = new Set<Promise<void>>();
  private commitSeq = 0;

  constructor(readonly fake: FakeGitHub) {
    fake.onBranchPushed = (branch, sha) => this.pushed(branch, sha);
  }

  /** Answers one API request: the App's routes here, the repository's in the fake GitHub. */
  handle(method: string, uri: string, body: Record<string, unknown>): Reply {
    const path = uri.split('?')[0]!;
    const repo = `/repos/${this.fake.owner}/${this.fake.name}`;
    const route = `${method} ${path.startsWith(repo) ? path.slice(repo.length) || '/' : path}`;
    let m: RegExpExecArray | null;
    if (route === 'GET /app') return [200, { id: this.appId, slug: this.slug, name: 'mergeq', permissions: this.permissions, events: this.events }];
    if (route === 'GET /app/hook/config') return [200, { url: this.hookUrl ?? '', content_type: 'json', insecure_ssl: '0' }];
    if (route === 'GET /app/hook/deliveries') return [200, [...this.deliveries].reverse()];
    if (route === 'GET /installation') {
      if (!this.installed) return [404, { message: 'Not Found' }];
      const html = `https://github.com/organizations/${this.fake.owner}/settings/installations/${this.fake.installationId}`;
      return [200, { id: this.fake.installationId, app_slug: this.slug, html_url: html, permissions: this.permissions, events: this.events }];
    }
    if (route === 'GET /') return [200, { id: this.repositoryId, full_name: `${this.fake.owner}/${this.fake.name}`, default_branch: 'main' }];
    if (route === 'POST /git/commits') return this.createCommit(body);
    if ((m = /^GET \/rules\/branches\/(.+)$/.exec(route))) return [200, m[1] === 'main' ? this.targetRules() : []];
    if (route === `GET /rulesets/${RULESET_ID}` && this.protection !== 'none') {
      return [200, { id: RULESET_ID, name: 'main', enforcement: 'active', current_user_can_bypass: this.protection === 'ruleset_with_bypass' ? 'always' : 'never' }];
    }
    if (/^GET \/branches\/.+\/protection$/.test(route)) return [404, { message: 'Branch not protected' }];
    const reply = this.fake.handle(method, uri, body);
    if ((m = /^GET \/git\/commits\/([^/]+)$/.exec(route)) && reply[0] === 200) {
      return [200, { ...(reply[1] as object), tree: { sha: `tree-${m[1]}` } }];
    }
    return reply;
  }

  /** Resolves once every webhook delivery started so far has been answered. */
  async settled(): Promise<void> {
    await Promise.all([...this.pendingDeliveries]);
  }

  /** Turns on the protection of `main` that refuses (or lets through) the App's fast-forward. */
  protect(protection: TargetProtection): void {
    this.protection = protection;
    if (protection === 'ruleset_without_bypass') this.fake.protectedBranches.add('main');
    else this.fake.protectedBranches.delete('main');
  }

  private targetRules(): unknown[] {
    if (this.protection === 'none') return [];
    const source = { ruleset_id: RULESET_ID, ruleset_source_type: 'Repository', ruleset_source: `${this.fake.owner}/${this.fake.name}` };
    return [
      { type: 'pull_request', ...source, parameters: { required_approving_review_count: 1 } },
      { type: 'required_status_checks', ...source, parameters: { required_status_checks: this.fake.requiredContexts.map((context) => ({ context })) } },
    ];
  }

  private createCommit(body: Record<string, unknown>): Reply {
    const parent = (body.parents as string[] | undefined)?.[0];
    if (!parent || !this.fake.hasCommit(parent)) return [422, { message: 'Object does not exist' }];
    const sha = `made${++this.commitSeq}`;
    this.fake.addCommit(sha, parent);
    return [201, { sha, message: body.message, tree: { sha: String(body.tree) }, parents: [{ sha: parent }] }];
  }

  /** A branch created or moved: GitHub delivers `push` to the App's webhook, and CI runs where it is set up to. */
  private pushed(branch: string, sha: string): void {
    if (this.ciBranches.test(branch)) setTimeout(() => this.fake.setStatus(sha, { context: 'ci', state: 'success', target_url: null, description: 'passed' }), 20);
    const delivery = this.deliver('push', { ref: `refs/heads/${branch}`, after: sha, repository: { id: this.repositoryId, ...this.fake.repository }, installation: { id: this.fake.installationId } });
    this.pendingDeliveries.add(delivery);
    void delivery.finally(() => this.pendingDeliveries.delete(delivery));
  }

  private async deliver(event: string, payload: object): Promise<void> {
    if (!this.hookUrl) return;
    const guid = randomUUID();
    const body = JSON.stringify(payload);
    let status = 0;
    try {
      const res = await fetch(this.hookUrl, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          'x-github-event': event,
          'x-github-delivery': guid,
          'x-hub-signature-256': `sha256=${createHmac('sha256', this.hookSecret).update(body).digest('hex')}`,
        },
        body,
        signal: AbortSignal.timeout(10_000),
      });
      status = res.status;
      await res.text();
    } catch {
      status = 0;
    }
    this.deliveries.push({
      id: this.deliveries.length + 1,
      guid,
      event,
      status_code: status,
      status: status === 0 ? 'Invalid HTTP Response: connection refused' : status < 300 ? 'OK' : `Invalid HTTP Response: ${status}`,
      delivered_at: new Date().toISOString(),
      installation_id: this.fake.installationId,
      repository_id: this.repositoryId,
    });
  }
}
