import type { Probot } from 'probot';
import type { QueueDoc } from '../../domain/queue.js';
import { missingPermissions, type AppManifest } from './app-manifest.js';
import { gitHubFault } from './github-fault.js';

export type Octokit = Awaited<ReturnType<Probot['auth']>>;

/** One line of `mergeq doctor`: `ok` true, false (it says what to fix), or null (skipped: an earlier check failed). */
export interface DoctorLine {
  check: string;
  ok: boolean | null;
  say: string;
}

export interface Target {
  owner: string;
  repo: string;
  branch: string;
}

/** Rule types of a ruleset that refuse a push straight to the branch (the App's fast-forward) unless bypassed. */
const PUSH_BLOCKING_RULES = new Set(['pull_request', 'update']);

export function statusOf(err: unknown): number | undefined {
  return (err as { status?: number }).status;
}

/** `fn`'s answer, or `fallback` when GitHub answers one of `statuses` (404: nothing there). */
export async function unless<T>(statuses: number[], fallback: T, fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (err) {
    if (statuses.includes(statusOf(err) ?? 0)) return fallback;
    throw err;
  }
}

/** The App installed on the repository, with the permissions and events app.yml asks for. */
export async function installationLine(
  app: Octokit,
  t: Target,
  manifest: AppManifest,
  apiUrl: string,
): Promise<{ line: DoctorLine; installationId: number | null; slug: string }> {
  const check = 'App installed';
  const { data: me } = await app.request('GET /app').catch((err: unknown) => {
    throw new Error(`cannot check the App: ${gitHubFault(err, apiUrl)}`, { cause: err });
  });
  const slug = me?.slug ?? 'mergeq';
  const installation = await unless([404], null, async () => (await app.request('GET /repos/{owner}/{repo}/installation', { owner: t.owner, repo: t.repo })).data);
  if (!installation) {
    const page = me?.html_url ?? `https://github.com/apps/${slug}`;
    return { installationId: null, slug, line: { check, ok: false, say: `the App ${slug} is not installed on ${t.owner}/${t.repo}: install it at ${page}/installations/new and choose the repository` } };
  }
  const missing = [
    ...missingPermissions(manifest.default_permissions, installation.permissions as Record<string, string | undefined>),
    ...manifest.default_events.filter((e) => !(installation.events ?? []).includes(e)).map((e) => `event ${e}`),
  ];
  if (missing.length > 0) {
    return {
      installationId: installation.id,
      slug,
      line: {
        check,
        ok: false,
        say: `installation ${installation.id} lacks ${missing.join(', ')}: accept the App's new permissions at ${installation.html_url} (if the App does not ask for them, add them in its settings first, as app.yml lists them)`,
      },
    };
  }
  return { installationId: installation.id, slug, line: { check, ok: true, say: `${slug} is installed on ${t.owner}/${t.repo} (installation ${installation.id}) with the permissions and events of app.yml` } };
}

export function queueLine(queue: QueueDoc | null, t: Target): DoctorLine {
  if (!queue) {
    return { check: 'queue', ok: false, say: `no queue for ${t.owner}/${t.repo} ${t.branch}: create one with mergeq queue create --repo ${t.owner}/${t.repo} --branch ${t.branch}` };
  }
  return { check: 'queue', ok: true, say: `a queue merges into ${t.branch} (${queue.settings.mode}, concurrency ${queue.settings.concurrency}, ${queue.state})` };
}

/** The checks the branch's protection and rulesets require, as the queue reads them. */
export async function branchRequiredChecks(inst: Octokit, t: Target): Promise<string[]> {
  const params = { owner: t.owner, repo: t.repo, branch: t.branch };
  const fromProtection = await unless([404], [] as string[], async () => {
    const { data } = await inst.request('GET /repos/{owner}/{repo}/branches/{branch}/protection/required_status_checks', params);
    return [...(data.contexts ?? []), ...(data.checks ?? []).map((c) => c.context)];
  });
  const rules = await unless([404], [], async () => (await inst.request('GET /repos/{owner}/{repo}/rules/branches/{branch}', { ...params, per_page: 100 })).data);
  const fromRulesets = rules.flatMap((r) => (r.type === 'required_status_checks' ? (r.parameters?.required_status_checks ?? []).map((c) => c.context) : []));
  return [...new Set([...fromProtection, ...fromRulesets])];
}

/** The checks runs wait for: the queue's `requiredStatuses`, else the branch's; each must be one the branch can accept. */
export function requiredChecksLine(queue: QueueDoc | null, fromBranch: string[], t: Target): DoctorLine {
  const check = 'required checks';
  if (!queue) return { check, ok: null, say: 'skipped: no queue' };
  const own = queue.settings.requiredStatuses ?? [];
  if (own.length > 0) {
    const unawaited = fromBranch.filter((c) => !own.includes(c));
    if (unawaited.length > 0) {
      return {
        check,
        ok: false,
        say: `${t.branch} requires ${unawaited.join(', ')} but the queue waits only for ${own.join(', ')}: add them to the queue's requiredStatuses, or clear requiredStatuses to wait for the branch's own`,
      };
    }
    return { check, ok: true, say: `runs wait for ${own.join(', ')} (the queue's requiredStatuses)` };
  }
  if (fromBranch.length === 0) {
    return {
      check,
      ok: false,
      say: `no required check: neither the queue's requiredStatuses nor ${t.branch}'s protection or rulesets name one, so a run passes on the first check that reports success: require your CI's checks on ${t.branch}, or set requiredStatuses`,
    };
  }
  return { check, ok: true, say: `runs wait for ${fromBranch.join(', ')} (required by ${t.branch}'s protection and rulesets)` };
}

/**
 * Whether the App may move the target branch to a tested commit (docs/github-app.md, "Merging"): no
 * ruleset rule requiring pull requests or restricting updates unless the App may bypass it, and no
 * classic protection requiring pull requests or restricting pushes without the App listed.
 */
export async function fastForwardLine(inst: Octokit, t: Target, slug: string): Promise<DoctorLine> {
  const check = 'fast-forward';
  const params = { owner: t.owner, repo: t.repo, branch: t.branch };
  const blocking: string[] = [];
  try {
    const rules = await unless([404], [], async () => (await inst.request('GET /repos/{owner}/{repo}/rules/branches/{branch}', { ...params, per_page: 100 })).data);
    const rulesetIds = new Set(rules.flatMap((r) => (PUSH_BLOCKING_RULES.has(r.type) && r.ruleset_id !== undefined ? [r.ruleset_id] : [])));
    for (const id of rulesetIds) {
      const { data } = await inst.request('GET /repos/{owner}/{repo}/rulesets/{ruleset_id}', { owner: t.owner, repo: t.repo, ruleset_id: id, includes_parents: true });
      if (data.current_user_can_bypass !== 'always') blocking.push(`ruleset "${data.name}" (bypass list: add the App, Always allow)`);
    }
    const protection = await unless([404], null, async () => (await inst.request('GET /repos/{owner}/{repo}/branches/{branch}/protection', params)).data);
    const listed = (apps: ({ slug?: string | null } | null)[] | undefined) => (apps ?? []).some((a) => a?.slug === slug);
    if (protection?.required_pull_request_reviews && !listed(protection.required_pull_request_reviews.bypass_pull_request_allowances?.apps)) {
      blocking.push('branch protection requiring pull requests (add the App to "Allow specified actors to bypass required pull requests")');
    }
    if (protection?.restrictions && !listed(protection.restrictions.apps)) blocking.push('branch protection restricting pushes (add the App to "Restrict who can push")');
  } catch (err) {
    return { check, ok: false, say: `cannot read ${t.branch}'s rules (${describe(err)}): the App needs administration: read` };
  }
  if (blocking.length > 0) {
    return {
      check,
      ok: false,
      say: `the App may not update ${t.branch}, so passed runs merge one PR at a time through the merge API: ${blocking.join('; ')}`,
    };
  }
  return { check, ok: true, say: `the App may fast-forward ${t.branch} to a tested commit` };
}

export function describe(err: unknown): string {
  const status = statusOf(err);
  const message = err instanceof Error ? err.message : String(err);
  return status ? `${status} ${message}` : message;
}
