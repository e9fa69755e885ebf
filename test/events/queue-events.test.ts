import { reason } from '../../src/domain/reasons.js';
import { transition } from '../../src/domain/transition.js';
import { queueEvents } from '../../src/events/queue-events.js';
import { eventPayload } from '../../src/webhooks/payload.js';
import { aQueue, anEntry, at } from '../store/fixtures.js';

const now = (m: number) => new Date(at(m));

test('new history transitions become pull_request events in order, with ids that do not depend on when they are computed', () => {
  const queue = aQueue({ version: 1 });
  const entry = anEntry(queue.id, { prNumber: 5 });
  const ready = transition(entry, 'PENDING', reason('ready', 'ready'), now(1));
  const testing = transition(ready, 'TESTING', reason('test_started', 'testing'), now(2));
  const next = { ...queue, version: 2, entries: [testing] };

  const events = queueEvents({ ...queue, entries: [] }, next, at(3));
  expect(events.map((e) => e.type)).toEqual(['pull_request.submitted', 'pull_request.ready', 'pull_request.testing']);
  expect(events.map((e) => e.at)).toEqual([entry.history[0]!.at, at(1), at(2)]);
  // Each carries the entry as it was at that transition.
  expect(events.map((e) => (e.data.kind === 'pull_request' ? e.data.entry.state : null))).toEqual(['NOT_READY', 'PENDING', 'TESTING']);
  expect(new Set(events.map((e) => e.orderKey))).toEqual(new Set([`${queue.id}#5`]));

  // The same transition seen from another commit (a retry on a reloaded document) has the same id.
  const again = queueEvents({ ...queue, entries: [ready] }, { ...next, version: 7 }, at(9));
  expect(again.map((e) => e.id)).toEqual([events[2]!.id]);
  expect(new Set(events.map((e) => e.id)).size).toBe(3);
});

test('a restart by a user, and by the queue, is pull_request.restarted; back to NOT_READY is no event', () => {
  const queue = aQueue();
  const entry = transition(anEntry(queue.id), 'TESTING', reason('test_started', 't'), now(1));
  const restarted = transition(entry, 'PENDING', reason('restarted_by_user', 'r'), now(2));
  const readmitted = transition(restarted, 'PENDING', reason('readmitted', 'r'), now(3));
  const notReady = transition(readmitted, 'NOT_READY', reason('pr_updated', 'pushed'), now(4));
  const events = queueEvents({ ...queue, entries: [entry] }, { ...queue, entries: [notReady] }, at(5));
  expect(events.map((e) => e.type)).toEqual(['pull_request.restarted', 'pull_request.restarted']);
});

test('queue state and settings changes; creation and deletion', () => {
  const queue = aQueue();
  const paused = { ...queue, version: 2, state: 'paused' as const, settings: { ...queue.settings, concurrency: 3 } };
  expect(queueEvents(queue, paused, at(1)).map((e) => e.type)).toEqual(['queue.state_changed', 'queue.updated']);
  expect(queueEvents(queue, paused, at(1))[0]!.data).toMatchObject({ kind: 'queue', previousState: 'running' });
  expect(queueEvents(queue, { ...queue, version: 2 }, at(1))).toEqual([]);
  expect(queueEvents(null, queue, at(1)).map((e) => e.type)).toEqual(['queue.created']);
  expect(queueEvents(queue, null, at(1)).map((e) => e.type)).toEqual(['queue.deleted']);
  expect(queueEvents(null, queue, at(1))[0]!.data).not.toHaveProperty('queue.entries');
});

test('a freeze is queue.frozen (a new freeze over one too), lifting it queue.unfrozen; the payload carries the freeze', () => {
  const queue = aQueue({ version: 1 });
  const f = { startedAt: at(1), endsAt: null, reason: 'release', by: 'ops', allowPullRequests: [] };
  const frozen = { ...queue, version: 2, freeze: f };
  const events = queueEvents(queue, frozen, at(1));
  expect(events.map((e) => e.type)).toEqual(['queue.frozen']);
  expect(events[0]!.data.kind === 'queue' ? events[0]!.data.queue.freeze : undefined).toEqual(f);
  expect(queueEvents(frozen, { ...frozen, version: 3, freeze: { ...f, reason: 'longer' } }, at(2)).map((e) => e.type)).toEqual(['queue.frozen']);
  expect(queueEvents(frozen, { ...frozen, version: 3, freeze: null }, at(3)).map((e) => e.type)).toEqual(['queue.unfrozen']);
  expect(queueEvents(frozen, { ...frozen, version: 3 }, at(3))).toEqual([]);
});

test("a stack member's events carry its stack: one pull_request event per member, each naming every member bottom up", () => {
  const queue = aQueue({ version: 1 });
  const members = [11, 12, 13].map((prNumber, i) => anEntry(queue.id, { prNumber, id: `e${prNumber}`, stack: { id: 'native:9004', number: 4, position: i + 1, kind: 'native' } }));
  const events = queueEvents({ ...queue, entries: [] }, { ...queue, version: 2, entries: members }, at(3));
  expect(events.map((e) => e.type)).toEqual(['pull_request.submitted', 'pull_request.submitted', 'pull_request.submitted']);
  const payloads = events.map((e) => eventPayload(e).data as { pullRequest: { prNumber: number; stack: unknown } });
  expect(payloads.map((p) => [p.pullRequest.prNumber, p.pullRequest.stack])).toEqual([
    [11, { id: 'native:9004', number: 4, kind: 'native', position: 1, size: 3, members: [11, 12, 13] }],
    [12, { id: 'native:9004', number: 4, kind: 'native', position: 2, size: 3, members: [11, 12, 13] }],
    [13, { id: 'native:9004', number: 4, kind: 'native', position: 3, size: 3, members: [11, 12, 13] }],
  ]);
});
