import type { RepoRef } from '../../domain/repo.js';
import { ServiceError } from '../errors.js';

/** Errors of the queue operations that only the QueueService raises (api.md, "Errors"). */
export const queueErrors = {
  exists: (repo: RepoRef, branch: string) =>
    new ServiceError(
      409,
      'queue_exists',
      'Queue exists',
      `a merge queue for branch ${branch} of ${repo.host}/${repo.owner}/${repo.name} already exists; submit to it as it is, or change its settings with updateQueue`,
    ),
  notEmpty: (count: number, branch: string) =>
    new ServiceError(
      409,
      'queue_not_empty',
      'Queue is not empty',
      `${count} pull request${count === 1 ? ' is' : 's are'} still in the queue for ${branch}; cancel ${count === 1 ? 'it' : 'them'} first (cancelPullRequest), or drain the queue and wait for it to empty`,
    ),
  notAccepting: (branch: string) =>
    new ServiceError(
      409,
      'queue_not_accepting',
      'Queue is not accepting pull requests',
      `the queue for ${branch} is draining and accepts no new pull requests`,
    ),
  /** `source`: `.github/mergeq.yml@<sha>`. A state change (pause, drain) is still allowed. */
  managedByFile: (branch: string, source: string) =>
    new ServiceError(
      409,
      'queue_managed_by_file',
      'Queue settings are managed by the repository',
      `the settings of the queue for ${branch} are kept in ${source.split('@')[0]} (applied from commit ${source.split('@')[1]}); change them there, or remove the queue from the file`,
    ),
  /** Every retry of an optimistic update met a concurrent change: rare, and safe to retry. */
  busy: (branch: string) =>
    new ServiceError(503, 'queue_busy', 'Queue busy', `the queue for ${branch} changed concurrently too often; retry the request`),
};
