import { pino } from 'pino';
import { VirtualTime } from '../../src/engine/virtual-time.js';
import { QueueWorker } from '../../src/engine/worker.js';
import { openMemoryStore } from '../../src/store/memory/open-memory.js';

/**
 * A failed reconcile is tried again with capped exponential backoff per queue (controller-runtime's
 * requeue of a failed key), not at the next poll, and the streak is logged once.
 */
test('a reconcile that throws twice is tried again after 1 s, then 2 s, then succeeds; one log line for the streak', async () => {
  const time = new VirtualTime();
  const start = time.nowMillis();
  const lines: { level: number; msg: string }[] = [];
  const logger = pino({ level: 'info' }, { write: (line: string) => lines.push(JSON.parse(line) as { level: number; msg: string }) });
  const triedAt: number[] = [];
  const worker = new QueueWorker({
    store: openMemoryStore(),
    clock: time,
    scheduler: time,
    logger,
    pollIntervalMs: 60_000,
    reconcile: async () => {
      triedAt.push(time.nowMillis() - start);
      if (triedAt.length <= 2) throw new Error('the store is not answering');
      return { gone: false, wakeAt: null };
    },
    onForget: () => undefined,
  });
  worker.start();
  worker.notify('q1');
  await worker.settle();
  expect(triedAt).toEqual([0]);

  await time.advanceTo(start + 10_000, () => worker.settle());
  expect(triedAt).toEqual([0, 1_000, 3_000]);
  expect(lines.map((l) => l.msg)).toEqual(['reconcile failed; retrying with backoff until it succeeds']);

  // The streak is over: no more tries until something asks for one (the poll at 60 s).
  await time.advanceTo(start + 59_000, () => worker.settle());
  expect(triedAt).toEqual([0, 1_000, 3_000]);
  worker.stop();
});

test('the wait doubles up to 60 s while the reconcile keeps failing', async () => {
  const time = new VirtualTime();
  const start = time.nowMillis();
  const triedAt: number[] = [];
  const worker = new QueueWorker({
    store: openMemoryStore(),
    clock: time,
    scheduler: time,
    logger: pino({ level: 'silent' }),
    pollIntervalMs: Number.POSITIVE_INFINITY,
    reconcile: () => {
      triedAt.push((time.nowMillis() - start) / 1000);
      return Promise.reject(new Error('down'));
    },
    onForget: () => undefined,
  });
  worker.start();
  worker.notify('q1');
  await time.advanceTo(start + 300_000, () => worker.settle());
  expect(triedAt).toEqual([0, 1, 3, 7, 15, 31, 63, 123, 183, 243]);
  worker.stop();
});
