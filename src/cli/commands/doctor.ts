import type { Command } from 'commander';
import type { Probot } from 'probot';
import type { QueueDoc } from '../../domain/queue.js';
import { repoKey } from '../../domain/repo.js';
import { repoHost } from '../../server/github-app.js';
import type { CliContext } from '../cli-context.js';
import { EXIT } from '../exit-codes.js';
import { readAppManifest } from '../github-app/app-manifest.js';
import { appClient, GITHUB_API } from '../github-app/app-client.js';
import { branchRequiredChecks, describe, fastForwardLine, installationLine, queueLine, requiredChecksLine, statusOf, type DoctorLine, type Octokit, type Target } from '../github-app/doctor-checks.js';
import { PROBE_BRANCH, probeLines } from '../github-app/doctor-probe.js';
import { usageError } from '../usage-error.js';
import { withStore } from '../with-store.js';
import { parseRepo } from './queue-ref.js';

const HELP = `
Runs with the service's configuration (the App's credentials, the store), from where the service
runs. It pushes mergeq/doctor-probe (an empty commit on the branch's head), waits for CI to report
on it and for GitHub to deliver its push to the App's webhook, and deletes it.

Example:
  $ mergeq doctor --repo acme/widgets --wait 5m
`;

/** "90s", "10m", "1h" or a number of seconds. */
export function parseWait(value: string): number {
  const m = /^(\d+)\s*(s|m|h)?$/.exec(value.trim());
  if (!m) throw usageError(`--wait takes a duration such as 90s, 10m or 1h, got "${value}"`);
  return Number(m[1]) * { s: 1000, m: 60_000, h: 3_600_000 }[(m[2] ?? 's') as 's' | 'm' | 'h'];
}

export function registerDoctor(program: Command, ctx: CliContext): void {
  program
    .command('doctor')
    .description("Check a repository's GitHub App setup end to end, one line each with what to fix: the App installed with app.yml's permissions, webhooks arriving, a queue, required checks, CI on mergeq/**, the fast-forward. Exits 1 when a check fails.")
    .requiredOption('--repo <repo>', 'the repository, owner/name')
    .option('--branch <name>', "the queue's target branch (default: the repository's default branch)")
    .option('--wait <duration>', 'how long to wait for CI and the webhook on the probe branch', '10m')
    .addHelpText('after', HELP)
    .action(async (options: { repo: string; branch?: string; wait: string }) => {
      const waitMs = parseWait(options.wait);
      const { owner, name } = parseRepo(options.repo);
      const config = ctx.config();
      const gitHost = config.gitHost;
      if (gitHost.kind !== 'github') {
        throw usageError('mergeq doctor checks the GitHub App: set APP_ID, PRIVATE_KEY (or PRIVATE_KEY_PATH) and WEBHOOK_SECRET, or run mergeq setup github');
      }
      const lines = await withStore(config, ctx.io, (store) =>
        runDoctor(appClient(gitHost), gitHost.apiUrl ?? GITHUB_API, { owner, repo: name, branch: options.branch }, waitMs, (branch) =>
          store.queues.getQueue(repoKey({ host: repoHost(gitHost.apiUrl), owner, name }), branch),
        ),
      );
      for (const line of lines) ctx.io.stdout.write(`${line.ok === true ? 'ok  ' : line.ok === false ? 'FAIL' : 'skip'}  ${line.check}: ${line.say}\n`);
      if (lines.some((l) => l.ok === false)) ctx.exitWith(EXIT.failed);
    });
}

async function runDoctor(
  probot: Probot,
  apiUrl: string,
  where: { owner: string; repo: string; branch: string | undefined },
  waitMs: number,
  queueOf: (branch: string) => Promise<QueueDoc | null>,
): Promise<DoctorLine[]> {
  const app: Octokit = await probot.auth();
  const manifest = readAppManifest();
  const installed = await installationLine(app, { ...where, branch: where.branch ?? '' }, manifest, apiUrl);
  if (installed.installationId === null) {
    const skipped = (check: string): DoctorLine => ({ check, ok: null, say: 'skipped: the App is not installed' });
    return [installed.line, ...['webhooks', 'queue', 'required checks', 'CI on mergeq/**', 'fast-forward'].map(skipped)];
  }
  const inst: Octokit = await probot.auth(installed.installationId);
  const { data: repository } = await inst.request('GET /repos/{owner}/{repo}', { owner: where.owner, repo: where.repo });
  const target: Target = { owner: where.owner, repo: where.repo, branch: where.branch ?? repository.default_branch };
  await inst.request('GET /repos/{owner}/{repo}/git/ref/{ref}', { owner: target.owner, repo: target.repo, ref: `heads/${target.branch}` }).catch((err: unknown) => {
    throw statusOf(err) === 404 ? usageError(`${target.owner}/${target.repo} has no branch ${target.branch}`) : err;
  });
  const queue = await queueOf(target.branch);
  const fromBranch = await branchRequiredChecks(inst, target);
  const required = queue?.settings.requiredStatuses?.length ? queue.settings.requiredStatuses : fromBranch;
  const fastForward = await fastForwardLine(inst, target, installed.slug);
  const probe = await probeLines({ app, inst, target, repositoryId: Number(repository.id), required, waitMs }).catch((err: unknown) => {
    const say = `cannot push ${PROBE_BRANCH} (${describe(err)}): the App needs contents: write on ${target.owner}/${target.repo}`;
    return { webhooks: { check: 'webhooks', ok: false, say }, ci: { check: 'CI on mergeq/**', ok: false, say } };
  });
  return [installed.line, probe.webhooks, queueLine(queue, target), requiredChecksLine(queue, fromBranch, target), probe.ci, fastForward];
}
