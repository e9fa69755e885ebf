import { ServiceError } from './errors.js';

/** Errors of the queue operations that only the QueueService raises (api.md, "Errors"). */
export const queueErrors = {
  exists: (branch: string) =>
    new ServiceError(409, 'queue_exists', 'Queue exists', `a merge queue for branch ${branch} already exists`),
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
  /** Every retry of an optimistic update met a concurrent change: rare, and safe to retry. */
  busy: (branch: string) =>
    new ServiceError(503, 'queue_busy', 'Queue busy', `the queue for ${branch} changed concurrently too often; retry the request`),
};
