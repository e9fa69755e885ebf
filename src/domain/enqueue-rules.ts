import type { PullRequestInfo } from './pull-request.js';
import type { StatusCheck } from './run.js';
import type { AutoEnqueue, QueueSettings } from './settings.js';

/** GitHub's limit on a label name. */
export const MAX_LABEL_LENGTH = 50;
export const MAX_AUTO_ENQUEUE_AUTHORS = 100;

/** Queues stored before these settings existed read as off. */
export function enqueueRulesOf(s: QueueSettings): { enqueueLabel: string | null; autoEnqueue: AutoEnqueue } {
  return {
    enqueueLabel: s.enqueueLabel ?? null,
    autoEnqueue: s.autoEnqueue ?? { enabled: false, authors: null },
  };
}

/** GitHub label names and logins are case-insensitive. */
export function sameName(a: string, b: string): boolean {
  return a.toLowerCase() === b.toLowerCase();
}

/** Whether auto-enqueue applies to a PR opened by `author`. */
export function autoEnqueuesAuthor(rule: AutoEnqueue, author: string): boolean {
  return rule.enabled && (rule.authors === null || rule.authors.some((a) => sameName(a, author)));
}

/**
 * Why a PR is not ready to be submitted by auto-enqueue, or null when it is: open, not a draft, not
 * blocked by the branch's rules (GitHub's `mergeable_state`: approvals, required checks), every check
 * required on the target branch green on its head, and no check on its head pending or failing.
 * `ownContext`, the queue's own status, does not count.
 */
export function notReadyToEnqueue(pr: PullRequestInfo, checks: readonly StatusCheck[], required: readonly string[], ownContext: string): string | null {
  if (pr.state !== 'open') return `it is ${pr.state}`;
  if (pr.draft) return 'it is a draft';
  if (pr.mergeability !== 'MERGEABLE') return `the branch rules do not let it merge yet (${pr.mergeability})`;
  const states = new Map(checks.filter((c) => c.context !== ownContext).map((c) => [c.context, c.state]));
  const notGreen = [...new Set([...required, ...states.keys()])].filter((c) => states.get(c) !== 'success');
  if (notGreen.length > 0) return `checks not green yet: ${notGreen.join(', ')}`;
  return null;
}
