import { setTimeout as sleep } from 'node:timers/promises';
import { statusOf, type DoctorLine, type Octokit, type Target } from './doctor-checks.js';

export const PROBE_BRANCH = 'mergeq/doctor-probe';

/** GitHub's delivery times and ours may differ this much. */
const CLOCK_SKEW_MS = 60_000;

interface Delivery {
  event: string;
  status_code: number;
  status: string;
  delivered_at: string;
  repository_id?: number | null;
}

export interface ProbeOptions {
  app: Octokit;
  inst: Octokit;
  target: Target;
  repositoryId: number;
  /** The checks a run waits for; empty: any status or check run counts. */
  required: string[];
  waitMs: number;
}

/**
 * Pushes `mergeq/doctor-probe` — a new empty commit on the target's head, so no status already on
 * the head counts — as the queue pushes its test branches, waits (at most `waitMs`) for CI to report
 * on it and for GitHub's delivery of that push to the App's webhook, then deletes the branch.
 */
export async function probeLines(o: ProbeOptions): Promise<{ webhooks: DoctorLine; ci: DoctorLine }> {
  const repoParams = { owner: o.target.owner, repo: o.target.repo };
  const hookUrl = await hookUrlOf(o.app);
  const { data: head } = await o.inst.request('GET /repos/{owner}/{repo}/git/ref/{ref}', { ...repoParams, ref: `heads/${o.target.branch}` });
  const { data: headCommit } = await o.inst.request('GET /repos/{owner}/{repo}/git/commits/{commit_sha}', { ...repoParams, commit_sha: head.object.sha });
  const { data: probe } = await o.inst.request('POST /repos/{owner}/{repo}/git/commits', {
    ...repoParams,
    message: `mergeq doctor: does CI run on ${PROBE_BRANCH}? (deleted when the check ends)`,
    tree: headCommit.tree.sha,
    parents: [head.object.sha],
  });
  const pushedAt = Date.now();
  await pushProbe(o.inst, repoParams, probe.sha);
  let reported: string[] = [];
  let delivery: Delivery | undefined;
  try {
    const deadline = pushedAt + o.waitMs;
    const pollMs = Math.min(5_000, Math.max(200, o.waitMs / 20));
    for (;;) {
      reported = await reportedChecks(o.inst, repoParams, probe.sha);
      if (hookUrl && !delivery) delivery = await probeDelivery(o.app, o.repositoryId, pushedAt);
      const ciDone = o.required.length > 0 ? o.required.every((c) => reported.includes(c)) : reported.length > 0;
      if ((ciDone && (delivery || !hookUrl)) || Date.now() >= deadline) break;
      await sleep(pollMs);
    }
  } finally {
    await o.inst.request('DELETE /repos/{owner}/{repo}/git/refs/{ref}', { ...repoParams, ref: `heads/${PROBE_BRANCH}` }).catch(() => undefined);
  }
  return { webhooks: webhooksLine(hookUrl, delivery, o.waitMs), ci: ciLine(reported, o.required, o.waitMs) };
}

async function hookUrlOf(app: Octokit): Promise<string> {
  try {
    return (await app.request('GET /app/hook/config')).data.url ?? '';
  } catch {
    return '';
  }
}

/** Creates the probe branch; one left by an interrupted doctor is moved instead. */
async function pushProbe(inst: Octokit, repoParams: { owner: string; repo: string }, sha: string): Promise<void> {
  try {
    await inst.request('POST /repos/{owner}/{repo}/git/refs', { ...repoParams, ref: `refs/heads/${PROBE_BRANCH}`, sha });
  } catch (err) {
    if (statusOf(err) !== 422) throw err;
    await inst.request('PATCH /repos/{owner}/{repo}/git/refs/{ref}', { ...repoParams, ref: `heads/${PROBE_BRANCH}`, sha, force: true });
  }
}

/** The names of the statuses and check runs on `sha`, whatever their state. */
async function reportedChecks(inst: Octokit, repoParams: { owner: string; repo: string }, sha: string): Promise<string[]> {
  const { data: combined } = await inst.request('GET /repos/{owner}/{repo}/commits/{ref}/status', { ...repoParams, ref: sha, per_page: 100 });
  const { data: runs } = await inst.request('GET /repos/{owner}/{repo}/commits/{ref}/check-runs', { ...repoParams, ref: sha, per_page: 100 });
  return [...new Set([...combined.statuses.map((s) => s.context), ...runs.check_runs.map((r) => r.name)])];
}

/** GitHub's delivery of a `push` of the repository since the probe was pushed, from the App's delivery log. */
async function probeDelivery(app: Octokit, repositoryId: number, since: number): Promise<Delivery | undefined> {
  const { data } = await app.request('GET /app/hook/deliveries', { per_page: 100 });
  return (data as Delivery[]).find(
    (d) => d.event === 'push' && d.repository_id === repositoryId && Date.parse(d.delivered_at) >= since - CLOCK_SKEW_MS,
  );
}

const WEBHOOK_URL_FIX = 'https://<your mergeq host>/api/github/webhooks, reachable from GitHub (on a laptop: WEBHOOK_PROXY_URL, docs/github-app.md)';

function webhooksLine(hookUrl: string, delivery: Delivery | undefined, waitMs: number): DoctorLine {
  const check = 'webhooks';
  if (!hookUrl) return { check, ok: false, say: `the App has no webhook URL: set it in the App's settings to ${WEBHOOK_URL_FIX}` };
  if (!delivery) {
    return { check, ok: false, say: `GitHub delivered no push of ${PROBE_BRANCH} in ${seconds(waitMs)}: check that the App's webhook is active and subscribed to push (App settings → Advanced → Recent deliveries)` };
  }
  const answer = delivery.status_code || delivery.status;
  if (delivery.status_code >= 200 && delivery.status_code < 300) return { check, ok: true, say: `GitHub delivered the probe's push to ${hookUrl}, answered ${answer}` };
  if (delivery.status_code === 400 || delivery.status_code === 401) {
    return { check, ok: false, say: `${hookUrl} refused GitHub's delivery (${answer}): WEBHOOK_SECRET must be the App's webhook secret` };
  }
  return { check, ok: false, say: `GitHub's delivery to ${hookUrl} failed (${answer}): point the App's webhook URL at ${WEBHOOK_URL_FIX}` };
}

function ciLine(reported: string[], required: string[], waitMs: number): DoctorLine {
  const check = 'CI on mergeq/**';
  const fix = `make the workflow of your checks run on pushes to mergeq/** (GitHub Actions: on.push.branches: [main, 'mergeq/**']; docs/github-app.md, "Making CI run on test branches")`;
  if (reported.length === 0) return { check, ok: false, say: `nothing reported on ${PROBE_BRANCH} in ${seconds(waitMs)}: ${fix}` };
  const missing = required.filter((c) => !reported.includes(c));
  if (missing.length > 0) {
    return { check, ok: false, say: `${PROBE_BRANCH} got ${reported.join(', ')} but not the required ${missing.join(', ')} in ${seconds(waitMs)}: ${fix}` };
  }
  return { check, ok: true, say: `CI reported ${reported.join(', ')} on ${PROBE_BRANCH}` };
}

function seconds(ms: number): string {
  return ms >= 120_000 ? `${Math.round(ms / 60_000)} min` : `${Math.round(ms / 1000)} s`;
}

