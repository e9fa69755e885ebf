import { knownSharedPrefix } from '../domain/appended-arrays.js';
import type { Entry, Transition } from '../domain/entry.js';
import { derivedId } from '../domain/ids.js';
import { positionOf, positionsOf } from '../domain/position.js';
import type { QueueDoc } from '../domain/queue.js';
import type { FailedTest, StatusCheck } from '../domain/run.js';
import { isActive } from '../domain/states.js';
import type { EventType, OutboxEvent, QueueHeader } from './event-types.js';

/**
 * The events of one commit of a queue document, `prev` → `next` (null: the queue is created or
 * deleted). Pure: the same documents give the same events with the same ids, so a commit retried on
 * a reloaded document cannot invent a second event for one transition.
 *
 * New history transitions of entries give `pull_request.*` events, in history order; a change of
 * the queue's state gives `queue.state_changed`, of its settings `queue.updated`, a new freeze
 * `queue.frozen` and a lifted one (unfrozen, or its end reached) `queue.unfrozen`, a storm's start
 * `queue.storm_started` and its end `queue.storm_ended`.
 */
export function queueEvents(prev: QueueDoc | null, next: QueueDoc | null, at: string): OutboxEvent[] {
  if (!next) return prev ? [queueEvent(prev, 'queue.deleted', `${prev.id}/deleted`, at, null)] : [];
  if (!prev) return [queueEvent(next, 'queue.created', `${next.id}/created`, at, null)];
  const events: OutboxEvent[] = [];
  if (prev.state !== next.state) events.push(queueEvent(next, 'queue.state_changed', `${next.id}/v${next.version}/state`, at, prev.state));
  if (JSON.stringify(prev.settings) !== JSON.stringify(next.settings)) {
    events.push(queueEvent(next, 'queue.updated', `${next.id}/v${next.version}/settings`, at, null));
  }
  const freeze = freezeEvent(prev, next);
  if (freeze) events.push(queueEvent(next, freeze, `${next.id}/v${next.version}/freeze`, at, null));
  const storm = stormEvent(prev, next);
  if (storm) events.push(queueEvent(next, storm, `${next.id}/v${next.version}/storm`, at, null));
  let header: QueueHeader | undefined;
  const positions = new Positions(next);
  const seen = new SeenHistory(prev);
  const prevEntries = prev.entries;
  const nextEntries = next.entries;
  for (let index = knownSharedPrefix(prevEntries, nextEntries) ?? 0; index < nextEntries.length; index++) {
    const entry = nextEntries[index]!;
    if (prevEntries[index] === entry) continue;
    for (let i = seen.lengthOf(entry, index); i < entry.history.length; i++) {
      const step = entry.history[i] as Transition;
      const type = pullRequestEventType(step, i);
      if (!type) continue;
      header ??= headerOf(next);
      const failing = type === 'pull_request.failed' || type === 'pull_request.pending_failure' ? failureOf(next, entry) : null;
      events.push({
        id: eventId(next.id, entry.id, i),
        type,
        at: step.at,
        orgId: next.orgId,
        repoKey: next.repoKey,
        branch: next.branch,
        orderKey: `${next.id}#${entry.prNumber}`,
        data: {
          kind: 'pull_request',
          queue: header,
          entry: entryAt(entry, i),
          position: i === entry.history.length - 1 ? positions.of(entry) : null,
          failingChecks: failing?.checks ?? [],
          failedTests: failing?.tests ?? [],
          ...(entry.stack ? { stackMembers: stackMembersOf(next, entry) } : {}),
        },
      });
    }
  }
  return events;
}

/** Which event a transition is; null for those no event names (back to NOT_READY). */
export function pullRequestEventType(step: Transition, index: number): EventType | null {
  if (index === 0) return 'pull_request.submitted';
  if (step.reason.code === 'restarted_by_user' || step.reason.code === 'readmitted') return 'pull_request.restarted';
  switch (step.state) {
    case 'PENDING':
      return 'pull_request.ready';
    case 'TESTING':
      return 'pull_request.testing';
    case 'TESTS_PASSED':
      return 'pull_request.tests_passed';
    case 'MERGED':
      return 'pull_request.merged';
    case 'FAILED':
      return 'pull_request.failed';
    case 'CANCELLED':
      return 'pull_request.cancelled';
    case 'PENDING_FAILURE':
      return 'pull_request.pending_failure';
    case 'NOT_READY':
      return null;
  }
}

function freezeEvent(prev: QueueDoc, next: QueueDoc): EventType | null {
  const was = prev.freeze ?? null;
  const is = next.freeze ?? null;
  if (was === is) return null;
  return is ? 'queue.frozen' : 'queue.unfrozen';
}

/** A storm's start and end, each once: the planner sets `storm` when one begins and clears it when it ends. */
function stormEvent(prev: QueueDoc, next: QueueDoc): EventType | null {
  const was = prev.storm ?? null;
  const is = next.storm ?? null;
  if (!was === !is) return null;
  return is ? 'queue.storm_started' : 'queue.storm_ended';
}

export function eventId(...parts: (string | number)[]): string {
  return `evt_${derivedId('outbound-event', ...parts)}`;
}

export function headerOf(queue: QueueDoc): QueueHeader {
  // eslint-disable-next-line @typescript-eslint/no-unused-vars
  const { entries, units, runs, targetLineage, stormWatch, ...header } = queue;
  return header;
}

function queueEvent(queue: QueueDoc, type: EventType, key: string, at: string, previousState: QueueDoc['state'] | null): OutboxEvent {
  return {
    id: eventId(key),
    type,
    at,
    orgId: queue.orgId,
    repoKey: queue.repoKey,
    branch: queue.branch,
    orderKey: queue.id,
    data: { kind: 'queue', queue: headerOf(queue), previousState },
  };
}

/**
 * How many history steps `prev` held for an entry (0 for a new one). Commits copy what they change,
 * so an entry at the same place and the same object is unchanged and never asked about; a changed one
 * is usually at the same place, a new one is known by its seq (entries take `nextSeq` when
 * submitted); only entries that moved are looked up by id.
 */
class SeenHistory {
  private byId: Map<string, number> | null = null;

  constructor(private readonly prev: QueueDoc) {}

  lengthOf(entry: Entry, index: number): number {
    const there = this.prev.entries[index];
    if (there?.id === entry.id) return there.history.length;
    if (entry.seq >= this.prev.nextSeq) return 0;
    this.byId ??= new Map(this.prev.entries.map((e) => [e.id, e.history.length]));
    return this.byId.get(entry.id) ?? 0;
  }
}

/** Queue positions, for the few entries with events: walked for each, mapped once when many ask. */
class Positions {
  private asked = 0;
  private map: ReadonlyMap<string, number> | null = null;

  constructor(private readonly queue: QueueDoc) {}

  of(entry: Entry): number | null {
    // Entries in no unit (NOT_READY) have no position.
    if (entry.state === 'NOT_READY') return null;
    if (this.map || ++this.asked > 4) return (this.map ??= positionsOf(this.queue)).get(entry.id) ?? null;
    return positionOf(this.queue, entry.id);
  }
}

/** The PRs of the entry's stack in the queue, bottom up: its active members and the entry itself. */
function stackMembersOf(queue: QueueDoc, entry: Entry): number[] {
  const id = entry.stack!.id;
  return queue.entries
    .filter((e) => e.stack?.id === id && (e.id === entry.id || isActive(e.state)))
    .sort((a, b) => a.stack!.position - b.stack!.position)
    .map((e) => e.prNumber);
}

function entryAt(entry: Entry, index: number): Entry {
  if (index === entry.history.length - 1) return entry;
  const step = entry.history[index] as Transition;
  return { ...entry, state: step.state, stateChangedAt: step.at, reason: step.reason, history: entry.history.slice(0, index + 1) };
}

/** The run that decided the entry (its current one, else the newest that tested it and did not pass). */
function failureOf(queue: QueueDoc, entry: Entry): { checks: StatusCheck[]; tests: FailedTest[] } | null {
  const run =
    queue.runs.find((r) => r.id === entry.testRunId) ??
    [...queue.runs].reverse().find((r) => r.status !== 'passed' && r.prs.some((p) => p.entryId === entry.id));
  if (!run) return null;
  return {
    checks: run.statusChecks.filter((c) => c.state === 'failure' || c.state === 'error'),
    tests: run.testResults?.failedTests ?? [],
  };
}
