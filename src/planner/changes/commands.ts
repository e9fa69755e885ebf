import type { Entry, Readiness, StackPlace } from '../../domain/entry.js';
import { activeEntryOf, appendEntry } from '../../domain/active-entries.js';
import { InvalidStateError } from '../../domain/errors.js';
import type { ResolvedPriority } from '../../domain/priority.js';
import { replaceEntry, type QueueDoc } from '../../domain/queue.js';
import { reason, type Reason } from '../../domain/reasons.js';
import type { QueueSettings } from '../../domain/settings.js';
import { isActive, type SettableQueueState } from '../../domain/states.js';
import { transition } from '../../domain/transition.js';
import { isInFlight } from '../../domain/run.js';

/**
 * The client commands as pure changes of a queue document. They record what was asked; the planner
 * then works out the consequences (new runs, restarts of the units behind, merges).
 */

export interface SubmitInput {
  entryId: string;
  prNumber: number;
  prTitle: string;
  prSha: string;
  prBaseBranch: string;
  prAuthor: string;
  prHeadRef?: string;
  priority: ResolvedPriority | null;
  noBatch: boolean | null;
  readiness: Readiness;
  stack?: StackPlace;
}

export function activeEntryFor(queue: Pick<QueueDoc, 'entries'>, prNumber: number): Entry | undefined {
  return activeEntryOf(queue.entries, prNumber);
}

/**
 * Adds a new entry, or, when the PR is already active, applies a new priority / noBatch to it
 * (idempotent re-submit). `priority`/`noBatch` null means "not given".
 */
export function submitEntry(queue: QueueDoc, input: SubmitInput, now: Date): { queue: QueueDoc; entry: Entry; created: boolean } {
  const existing = activeEntryFor(queue, input.prNumber);
  if (existing) {
    const updated: Entry = {
      ...existing,
      ...(input.priority ?? {}),
      noBatch: input.noBatch ?? existing.noBatch,
      // Submitting again is a person asking for another try: a restart-loop hold lifts.
      ...(existing.hold ? { hold: null } : {}),
      // Queued alone before, now with the stack above it (or in another place of it).
      ...(input.stack ? { stack: input.stack } : {}),
    };
    return { queue: replaceEntry(queue, updated), entry: updated, created: false };
  }
  const at = now.toISOString();
  const submitted = reason('submitted', 'submitted to the queue');
  const entry: Entry = {
    id: input.entryId,
    queueId: queue.id,
    seq: queue.nextSeq,
    prNumber: input.prNumber,
    prTitle: input.prTitle,
    prSha: input.prSha,
    prBaseBranch: input.prBaseBranch,
    prAuthor: input.prAuthor,
    ...(input.prHeadRef ? { prHeadRef: input.prHeadRef } : {}),
    state: 'NOT_READY',
    stateChangedAt: at,
    submittedAt: at,
    readyAt: null,
    ...(input.priority ?? { priorityValue: 100, priorityName: 'medium', usedDefaultPriorityName: 'medium' }),
    noBatch: input.noBatch ?? false,
    readiness: input.readiness,
    reason: submitted,
    testRunId: null,
    retriesUsed: 0,
    mergeIntent: null,
    mergeCommitSha: null,
    history: [{ state: 'NOT_READY', at, reason: submitted }],
    ...(input.stack ? { stack: input.stack } : {}),
  };
  return { queue: { ...queue, nextSeq: queue.nextSeq + 1, entries: appendEntry(queue.entries, entry) }, entry, created: true };
}

/** Ends an active entry as CANCELLED. A PR whose merge is under way cannot be cancelled. */
export function cancelEntry(queue: QueueDoc, entryId: string, why: Reason, now: Date): QueueDoc {
  const entry = queue.entries.find((e) => e.id === entryId);
  if (!entry) throw new InvalidStateError(`entry ${entryId} is not in the queue`);
  if (!isActive(entry.state)) throw new InvalidStateError(`the pull request is ${entry.state}`);
  if (entry.mergeIntent) throw new InvalidStateError('the pull request is being merged');
  const cancelled = { ...transition(entry, 'CANCELLED', why, now), testRunId: null };
  return removeFromUnits(replaceEntry(queue, cancelled), entryId);
}

export const RESTARTABLE_STATES = ['TESTING', 'TESTS_PASSED', 'PENDING_FAILURE'] as const;

/**
 * Reruns the tests of the unit holding the entry, with the same content, without moving it and
 * without restarting anything else (rule 12): its deciding run is cancelled (a passed result too: it
 * may no longer be used to merge) and its entries return to PENDING at the same position, to be
 * retested by the planner. A suspect (PENDING_FAILURE) stays one — the units behind it are built
 * without it — and the planner reruns its failed run beside the queue at once.
 */
export function restartEntry(queue: QueueDoc, entryId: string, now: Date): QueueDoc {
  const entry = queue.entries.find((e) => e.id === entryId);
  // A PR held for restarting without end is tried again when a person asks (restart-loop.ts).
  if (entry?.state === 'NOT_READY' && entry.hold) return replaceEntry(queue, { ...entry, hold: null });
  if (!entry || !(RESTARTABLE_STATES as readonly string[]).includes(entry.state)) {
    throw new InvalidStateError(
      `only a pull request that is ${RESTARTABLE_STATES.join(', ')} can be restarted; it is ${entry?.state ?? 'not in the queue'}`,
    );
  }
  if (entry.mergeIntent) throw new InvalidStateError('the pull request is being merged');
  const unit = queue.units.find((u) => u.entryIds.includes(entryId));
  const memberIds = new Set(unit ? unit.entryIds : [entryId]);
  const why = reason('restarted_by_user', 'tests restarted by a user');
  const runIds = new Set(queue.entries.filter((e) => memberIds.has(e.id) && e.testRunId).map((e) => e.testRunId));
  const suspect = entry.state === 'PENDING_FAILURE';
  return {
    ...queue,
    entries: queue.entries.map((e) => {
      if (!memberIds.has(e.id) || !isActive(e.state) || e.state === 'PENDING' || e.state === 'NOT_READY') return e;
      return suspect
        ? { ...transition(e, 'PENDING_FAILURE', why, now), retriesUsed: 0 }
        : { ...transition(e, 'PENDING', why, now), testRunId: null, retriesUsed: 0 };
    }),
    runs: queue.runs.map((r) =>
      runIds.has(r.id) && (isInFlight(r) || (r.status === 'passed' && !suspect))
        ? { ...r, status: 'cancelled', cancelReason: 'restarted_by_user', finishedAt: r.finishedAt ?? now.toISOString() }
        : r,
    ),
  };
}

export function hasRunsInFlight(queue: QueueDoc): boolean {
  return queue.runs.some(isInFlight);
}

/**
 * Applies a settings patch and a requested state. A mode change with runs in flight enters
 * `switching_modes`; the planner applies the new mode once nothing is in flight.
 */
export function changeSettings(
  queue: QueueDoc,
  patch: Partial<QueueSettings>,
  requestedState: SettableQueueState | undefined,
  now: Date,
): QueueDoc {
  const { mode, ...rest } = patch;
  let next: QueueDoc = { ...queue, settings: { ...queue.settings, ...rest }, updatedAt: now.toISOString() };
  if (requestedState) {
    next = next.switching
      ? { ...next, switching: { ...next.switching, returnTo: requestedState } }
      : { ...next, state: requestedState };
  }
  const currentTarget = next.switching?.toMode ?? next.settings.mode;
  if (mode && mode !== currentTarget) {
    if (mode === next.settings.mode) {
      // Switching back before the switch finished: nothing left to switch.
      next = { ...next, state: next.switching?.returnTo ?? next.state, switching: null };
    } else if (hasRunsInFlight(next)) {
      const returnTo = next.switching?.returnTo ?? (next.state === 'switching_modes' ? 'running' : next.state);
      next = { ...next, state: 'switching_modes', switching: { toMode: mode, returnTo } };
    } else {
      next = { ...next, settings: { ...next.settings, mode } };
    }
  }
  return next;
}

function removeFromUnits(queue: QueueDoc, entryId: string): QueueDoc {
  return {
    ...queue,
    units: queue.units
      .map((u) => (u.entryIds.includes(entryId) ? { ...u, entryIds: u.entryIds.filter((id) => id !== entryId) } : u))
      .filter((u) => u.entryIds.length > 0),
  };
}

export type { Reason };
