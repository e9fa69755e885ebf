import type { Entry } from '../domain/entry.js';
import type { CommitStatusReport } from '../githost/githost.js';
import { waitingSince } from '../planner/all-admission.js';
import { verdictStatusLine } from './verdict-comment.js';

/** A suspect being rerun because its run failed only on known flaky or quarantined tests. */
export function forgivenAsFlake(entry: Entry): boolean {
  return entry.state === 'PENDING_FAILURE' && entry.reason?.code === 'flaky_tests';
}

/** Passed, and held by a freeze or closed merge windows (src/planner/phases/hold.ts). */
export function heldByPolicy(entry: Entry): boolean {
  return entry.state === 'TESTS_PASSED' && entry.reason?.code === 'merge_held' && entry.mergeIntent === null;
}

export function statusContext(branch: string): string {
  return `mergeq (${branch})`;
}

/**
 * What decides the reported status (github.md, "Write budget"): one pending status while the PR is in
 * the queue, whatever it goes through there (queued, testing, passed), one while it waits to be ready,
 * and one final status. A flake forgiven and an `ALL` PR waiting for a quieter moment are said too;
 * a moving position is not. Null: nothing to say — a PR that merged before anything was said about it
 * (the merged PR says it).
 */
export const QUEUED_KEY = 'QUEUED';

export function commitStatusKey(entry: Entry): string | null {
  if (entry.state === 'FAILED' || entry.state === 'CANCELLED') return `${entry.state}|${entry.reason?.code ?? ''}`;
  if (entry.state === 'MERGED') return entry.reported?.status === undefined ? null : 'MERGED';
  if (forgivenAsFlake(entry)) return `${entry.state}|flaky_tests|${entry.reason!.message}`;
  if (entry.state === 'NOT_READY') return waitingSince(entry) ? 'NOT_READY|all_targets_wait' : 'NOT_READY';
  if (heldByPolicy(entry)) return `TESTS_PASSED|merge_held|${entry.reason!.message}`;
  return QUEUED_KEY;
}

/** `eta`: the entry's estimated merge time (src/domain/eta.ts), said while it is queued: "Queued #3 · ETA 14:05 UTC". */
export function commitStatusFor(entry: Entry, position: number | undefined, branch: string, eta: string | null = null): CommitStatusReport {
  const make = (state: CommitStatusReport['state'], description: string): CommitStatusReport => ({
    context: statusContext(branch),
    state,
    // GitHub's limit on its length is the GitHub host's business.
    description,
    targetUrl: null,
  });
  switch (entry.state) {
    case 'NOT_READY':
      if (waitingSince(entry)) return make('pending', 'Impacts every target: waiting for fewer runs in flight to join');
      return make('pending', `Waiting until ready${entry.readiness.note ? `: ${entry.readiness.note}` : ''}`);
    case 'PENDING':
      return make('pending', `${position === undefined ? 'Queued' : `Queued #${position}`}${eta ? ` · ETA ${eta.slice(11, 16)} UTC` : ''}`);
    case 'TESTING':
      return make('pending', 'Testing');
    case 'TESTS_PASSED':
      // "Tests passed; frozen until …: reason" / "Tests passed; outside merge window until …"
      if (heldByPolicy(entry)) return make('pending', `T${entry.reason!.message.slice(1)}`);
      return make('pending', 'Tests passed; merging in queue order');
    case 'PENDING_FAILURE':
      if (forgivenAsFlake(entry)) return make('pending', `Rerunning: ${entry.reason!.message}`);
      return make('pending', 'Testing: a run failed, checking whether it was this pull request');
    case 'MERGED':
      return make('success', 'Merged');
    case 'FAILED':
    case 'CANCELLED':
      return make('failure', verdictStatusLine(entry) ?? entry.reason?.message ?? entry.state.toLowerCase());
  }
}
