import { initialReadiness, type Readiness } from '../../domain/entry.js';
import type { PullRequestInfo } from '../../domain/pull-request.js';
import type { QueueDoc } from '../../domain/queue.js';
import { NO_GIT_HOST, NoGitHostError, type GitHost } from '../../githost/githost.js';
import type { TargetStore } from '../../store/store.js';

/** What a new entry starts with: the PR as the git host describes it, and its initial readiness. */
export interface PullRequestFacts {
  prTitle: string;
  prSha: string;
  prBaseBranch: string;
  prAuthor: string;
  prHeadRef?: string;
  readiness: Readiness;
}

/**
 * Reads the PR from the git host. When there is no git host, or it fails or does not know the PR,
 * the PR is still accepted: its facts are empty, mergeability UNSPECIFIED, and the note says why —
 * it waits as NOT_READY until the engine learns more. `known`: the PR as the caller has just read it
 * from the git host (a `/merge` comment's handler), not read again.
 */
export async function readPullRequestFacts(
  deps: { gitHost: GitHost; store: { targets: TargetStore } },
  queue: QueueDoc,
  prNumber: number,
  known?: PullRequestInfo,
): Promise<PullRequestFacts> {
  const requiresImpactedTargets = (queue.switching?.toMode ?? queue.settings.mode) === 'parallel';
  const unknown = (note: string): PullRequestFacts => ({
    prTitle: '',
    prSha: '',
    prBaseBranch: '',
    prAuthor: '',
    readiness: { ...initialReadiness(), requiresImpactedTargets, gitHubMergeability: 'UNSPECIFIED', note },
  });

  if (deps.gitHost.kind === 'none') return unknown(NO_GIT_HOST);
  let info: PullRequestInfo | null | undefined = known;
  try {
    info ??= await deps.gitHost.getPullRequest(queue.repo, prNumber);
  } catch (err) {
    if (err instanceof NoGitHostError) return unknown(err.message);
    return unknown(`the git host could not be asked about the pull request: ${err instanceof Error ? err.message : String(err)}`);
  }
  if (!info) return unknown(`the git host does not know pull request #${prNumber}`);

  const targets = info.headSha ? await deps.store.targets.getImpactedTargets(queue.repoKey, prNumber, info.headSha) : null;
  return {
    prTitle: info.title,
    prSha: info.headSha,
    prBaseBranch: info.baseBranch,
    prAuthor: info.author,
    ...(info.headRef ? { prHeadRef: info.headRef } : {}),
    readiness: {
      hasImpactedTargets: targets !== null,
      requiresImpactedTargets,
      doesBaseBranchMatch: info.baseBranch === queue.branch,
      gitHubMergeability: info.mergeability,
      isOpen: info.state === 'open',
      isDraft: info.draft,
      note: info.state === 'open' ? null : `the pull request is ${info.state}`,
    },
  };
}

/**
 * The PR as the git host describes it now: null when the host does not know it, undefined when there
 * is no git host or it could not be asked (then nothing is learnt).
 */
export async function readPullRequestNow(gitHost: GitHost, queue: QueueDoc, prNumber: number): Promise<PullRequestInfo | null | undefined> {
  if (gitHost.kind === 'none') return undefined;
  try {
    return await gitHost.getPullRequest(queue.repo, prNumber);
  } catch {
    return undefined;
  }
}
