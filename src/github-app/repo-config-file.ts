import { fileSettingsSource, REPO_CONFIG_PATH } from '../domain/queue-template.js';
import type { RepoRef } from '../domain/repo.js';
import { repoParams, type Octokit } from '../githost/github/github-client.js';
import { readRepoFile } from '../githost/github/repo-file.js';
import type { AppliedRepoConfig } from '../service/repo-settings/repo-config-service.js';
import type { AppDeps } from './app-deps.js';
import { reportRepoConfig } from './config-check.js';

/** Whether a push's commits added, changed or removed the file. */
export function touchesRepoConfig(commits: readonly { added?: string[]; modified?: string[]; removed?: string[] }[]): boolean {
  return commits.some((c) => [...(c.added ?? []), ...(c.modified ?? []), ...(c.removed ?? [])].includes(REPO_CONFIG_PATH));
}

/**
 * Reads the file at `sha` of the default branch and applies it; one check run on `sha` says the
 * outcome (config-check.ts): failure with each problem on its line (and nothing changed), or success
 * listing what changed. No file: what it managed is released, and it is said only if there was any.
 */
export async function applyRepoConfig(deps: AppDeps, octokit: Octokit, repo: RepoRef, sha: string): Promise<void> {
  const config = deps.repoConfig;
  if (!config) return;
  const text = await readRepoFile(octokit, repo, REPO_CONFIG_PATH, sha);
  const parsed = text === null ? null : config.parse(text);
  if (parsed && !parsed.ok) {
    deps.logger.info({ repo: `${repo.owner}/${repo.name}`, sha, problem: parsed.problem }, `${REPO_CONFIG_PATH} does not validate; nothing changed`);
    await reportRepoConfig(octokit, repo, sha, { ok: false, title: `${REPO_CONFIG_PATH} ${parsed.problem}`, problems: parsed.problems, changes: [] });
    return;
  }
  const org = await deps.orgs.forOwner(repo.host, repo.owner);
  // A channel the file names must exist before anything is applied: the file is refused whole.
  const problems = parsed && config.channels ? await config.channels.check(org, repo, parsed.config.channels) : [];
  if (problems.length > 0) {
    const more = problems.length > 1 ? ` (and ${problems.length - 1} more)` : '';
    const problem = `line ${problems[0]!.line}: ${problems[0]!.message}${more}`;
    deps.logger.info({ repo: `${repo.owner}/${repo.name}`, sha, problem }, `${REPO_CONFIG_PATH} names unknown channels; nothing changed`);
    await reportRepoConfig(octokit, repo, sha, { ok: false, title: `${REPO_CONFIG_PATH} ${problem}`, problems, changes: [] });
    return;
  }
  const source = fileSettingsSource(sha);
  const applied = await config.service.apply(org, repo, source, parsed ? parsed.config : null);
  const channelChanges = config.channels ? await config.channels.apply(org, repo, source, parsed ? parsed.config.channels : null) : [];
  const channels = parsed?.config.channels.length ?? 0;
  if (parsed || applied.released > 0 || channelChanges.length > 0) {
    await reportRepoConfig(octokit, repo, sha, { ok: true, title: summary(applied, parsed === null, channels), problems: [], changes: [...applied.changes, ...channelChanges] });
  }
}

/** The file's state on the default branch's head, when the App is installed on the repository. */
export async function applyRepoConfigAtHead(deps: AppDeps, octokit: Octokit, repo: RepoRef): Promise<void> {
  if (!deps.repoConfig) return;
  const { data } = await octokit.request('GET /repos/{owner}/{repo}', repoParams(repo));
  const branch = (data as { default_branch: string }).default_branch;
  const { data: ref } = await octokit.request('GET /repos/{owner}/{repo}/git/ref/{ref}', { ...repoParams(repo), ref: `heads/${branch}` });
  const sha = (ref as { object: { sha: string } }).object.sha;
  if ((await readRepoFile(octokit, repo, REPO_CONFIG_PATH, sha)) === null) return;
  await applyRepoConfig(deps, octokit, repo, sha);
}

function summary(a: AppliedRepoConfig, removed: boolean, channels: number): string {
  if (removed) return `${REPO_CONFIG_PATH} removed: ${a.released} queue(s) and template(s) are managed through the API again`;
  const parts = [`${a.queuesCreated} queue(s) created`, `${a.queuesUpdated} updated`, `${a.templates} pattern template(s)`];
  if (a.released > 0) parts.push(`${a.released} no longer managed`);
  if (channels > 0) parts.push(`${channels} chat channel(s)`);
  return `${REPO_CONFIG_PATH} applied: ${parts.join(', ')}`;
}

