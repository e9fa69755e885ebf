import type { Context } from 'probot';
import type { Octokit } from '../../githost/github/github-client.js';
import type { AppDeps } from '../app-deps.js';
import { applyRepoConfigAtHead } from '../repo-config-file.js';

/**
 * The App was installed on an account, or given more repositories: the account gets its mergeq
 * organization (see OwnerOrgs), and the installation of each repository is remembered and its
 * `.github/mergeq.yml`, if any, applied.
 */
export async function onInstallation(deps: AppDeps, context: Context<'installation.created' | 'installation_repositories.added'>): Promise<void> {
  const { installation } = context.payload;
  const account = installation.account;
  const login = account && 'login' in account ? account.login : null;
  if (!login) return;
  await deps.orgs.forOwner(deps.host, login);
  const payload = context.payload;
  const repos = 'repositories_added' in payload ? payload.repositories_added : (payload.repositories ?? []);
  for (const r of repos) {
    const [owner = login, name = r.name] = r.full_name.split('/');
    deps.onInstallationRepo?.({ host: deps.host, owner, name }, installation.id);
    // The installation stands whatever the file says or however reading it fails: its next push applies it.
    await applyRepoConfigAtHead(deps, context.octokit as unknown as Octokit, { host: deps.host, owner, name }).catch((err: unknown) =>
      deps.logger.warn({ err, repo: `${owner}/${name}` }, 'could not apply .github/mergeq.yml at installation'),
    );
  }
}
