import { createHash } from 'node:crypto';
import { BSON } from 'mongodb';
import { derivedId } from '../../src/domain/ids.js';
import type { QueueDoc } from '../../src/domain/queue.js';
import { queueEvents } from '../../src/events/queue-events.js';
import { applyActions, plan, submitEntry } from '../../src/planner/index.js';
import { TargetInterner } from '../../src/planner/parallel/interner.js';
import { openMongoOnDb } from '../../src/store/mongo/open-mongo.js';
import { emptyQueue, readyReadiness, T0 } from '../planner/builders.js';
import { RecordingDb } from './mongo-recording-db.js';

const DEPTH = 10_000;
const MiB = 2 ** 20;

/** A parallel-mode queue of DEPTH PRs from the submit command, not yet reconciled (all NOT_READY). */
function submitted(): QueueDoc {
  let q = emptyQueue({ mode: 'parallel' });
  for (let prNumber = 1; prNumber <= DEPTH; prNumber++) {
    q = submitEntry(
      q,
      {
        entryId: derivedId(q.id, 'entry', prNumber),
        prNumber,
        prTitle: `Change #${prNumber}: tighten the widget pipeline retries and their timeouts`,
        prSha: createHash('sha1').update(String(prNumber)).digest('hex'),
        prBaseBranch: q.branch,
        prAuthor: `developer-${prNumber % 50}`,
        priority: null,
        noBatch: null,
        // The impacted targets of its head were uploaded before it was submitted.
        readiness: readyReadiness({ hasImpactedTargets: true }),
      },
      T0,
    ).queue;
  }
  return q;
}

describe('MongoDB queue documents of a deep queue (BSON sizes from the driver)', () => {
  it(`stay under 12 MiB each when ${DEPTH.toLocaleString('en')} PRs with impacted targets turn ready in one reconcile`, async () => {
    const before = submitted();
    const interner = new TargetInterner();
    const targets = new Map(before.entries.map((e) => [e.id, interner.toTargetSet({ all: false, targets: [`//svc/${e.prNumber % 97}:test`, `//lib/${e.prNumber % 13}:test`] })]));
    const after = { ...applyActions(before, plan({ queue: before, targets }, T0), T0), version: before.version + 1 };
    expect(before.entries.filter((e) => e.state !== 'NOT_READY')).toEqual([]);
    expect(after.entries.filter((e) => e.state === 'NOT_READY')).toEqual([]);
    expect(after.units).toHaveLength(DEPTH);

    const recording = new RecordingDb();
    const store = await openMongoOnDb(recording.db, async () => {});
    // An organization with an enabled webhook: the commit's events are kept.
    recording.one.set('webhook_subscriptions', { id: 'wh_1', orgId: before.orgId, enabled: true });
    await store.queues.insertQueue(before);
    const inserted = recording.written.length;
    // The commit reads the stored queue back: the document and pages just written.
    recording.one.set('queues', recording.written.find((w) => w.collection === 'queues')!.doc as Record<string, unknown>);
    recording.queue('queue_pages', recording.written.filter((w) => w.collection === 'queue_pages').map((w) => w.doc as Record<string, unknown>));
    const events = queueEvents(before, after, T0.toISOString());
    expect(events.length).toBeGreaterThanOrEqual(DEPTH);
    expect(await store.queues.commitQueue(after, before.version, { events })).toBe(true);

    const commit = recording.written.slice(inserted);
    const size = (doc: object) => BSON.calculateObjectSize(doc);
    const insertedDocument = recording.written.find((w) => w.collection === 'queues' && w.op === 'insertOne')!.doc;
    const update = commit.find((w) => w.collection === 'queues' && w.op === 'updateOne')!.doc as { $set: object };
    // The queue document as the update leaves it (the commit ids it appends are 36 characters each).
    const queueDocument = { ...insertedDocument, ...update.$set };
    const largest = Math.max(...recording.written.map((w) => size(w.doc)));
    const total = commit.reduce((sum, w) => sum + size(w.doc), 0);
    expect(size(queueDocument)).toBeLessThan(12 * MiB);
    expect(size(update)).toBeLessThan(12 * MiB);
    expect(largest).toBeLessThan(12 * MiB);
    // The whole commit, spread over pages and event documents, would not have fit in one document.
    expect(total).toBeGreaterThan(16 * MiB);
  }, 120_000);
});
