import { VirtualTime } from '../../src/engine/virtual-time.js';
import { NOT_SENT, WriteBudget, type WriteRequest } from '../../src/githost/github/write-budget.js';
import { rateLimitPauseMs } from '../../src/githost/github/write-budget-plugin.js';
import { classifyWrite } from '../../src/githost/github/write-class.js';
import { ContentLimits } from '../../src/testing/fake-github-limits.js';

/** The installation write budget on its own, in virtual time: what is sent when, in which order. */

const START = Date.UTC(2026, 10, 27, 12, 0, 0);

function setup(limits: { perMinute: number; perHour: number; hourMs?: number } = { perMinute: 60, perHour: 500 }) {
  const time = new VirtualTime(START);
  const sent: { name: string; at: number }[] = [];
  const dropped: string[] = [];
  let refuseNext: { retryAfter: string } | null = null;
  const budget = new WriteBudget({
    ...limits,
    now: () => time.nowMillis(),
    scheduler: time,
    pauseFor: (e) => rateLimitPauseMs(e, time.nowMillis()),
    events: { dropped: (_i, kind, why) => dropped.push(`${kind}:${why}`) },
  });
  const write = (name: string, cls: WriteRequest<unknown>['cls'], key: string | null = null) =>
    budget.for(7).submit({
      cls,
      kind: 'statuses',
      key,
      send: async () => {
        if (refuseNext) {
          const headers = refuseNext;
          refuseNext = null;
          throw Object.assign(new Error('You have exceeded a secondary rate limit'), { status: 403, response: { headers: { 'retry-after': headers.retryAfter }, data: { message: 'You have exceeded a secondary rate limit.' } } });
        }
        sent.push({ name, at: time.nowMillis() - START });
        return name;
      },
    });
  const flush = () => new Promise((resolve) => setImmediate(resolve));
  const run = async (ms: number) => time.advanceBy(ms, async () => { for (let i = 0; i < 5; i++) await flush(); });
  return { time, budget, sent, dropped, write, run, refuse: (retryAfter: string) => (refuseNext = { retryAfter }) };
}

test('writes go one at a time, spaced evenly for the minute limit, in class order: acknowledgements, the queue, pending statuses last', async () => {
  const t = setup({ perMinute: 60, perHour: 500 });
  const results = [t.write('pending', 'low'), t.write('comment', 'comment'), t.write('final', 'final'), t.write('merge', 'queue'), t.write('reaction', 'ack')];
  await t.run(10_000);
  // The first write found the budget idle and went at once; the rest in class order, 1 s apart.
  expect(t.sent).toEqual([
    { name: 'pending', at: 0 },
    { name: 'reaction', at: 1000 },
    { name: 'merge', at: 2000 },
    { name: 'final', at: 3000 },
    { name: 'comment', at: 4000 },
  ]);
  await expect(Promise.all(results)).resolves.toEqual(['pending', 'comment', 'final', 'merge', 'reaction']);
});

test('under a short budget a command is acknowledged with the next write, ahead of a backlog of the queue, statuses and comment edits', async () => {
  const t = setup({ perMinute: 20, perHour: 150 });
  for (let i = 0; i < 30; i++) void t.write(`merge${i}`, 'queue');
  for (let i = 0; i < 10; i++) void t.write(`edit${i}`, 'comment', `comment ${i}`);
  for (let i = 0; i < 10; i++) void t.write(`pending${i}`, 'low', `status ${i}`);
  await t.run(30_000);
  void t.write('reaction', 'ack');
  await t.run(5_000);
  const reaction = t.sent.find((w) => w.name === 'reaction');
  expect(reaction?.at).toBeLessThanOrEqual(33_000);
});

test('GitHub counts a write when it arrives: writes that arrive late by different amounts are never refused at a window edge', async () => {
  const time = new VirtualTime(START);
  const github = new ContentLimits(20, 150, () => time.nowMillis(), 10 * 60_000);
  const budget = new WriteBudget({ perMinute: 20, perHour: 150, hourMs: 10 * 60_000, now: () => time.nowMillis(), scheduler: time, pauseFor: () => null });
  let i = 0;
  // The first write of each window is slow on the way (900 ms), the others quick (10 ms).
  const send = () =>
    new Promise<string>((resolve, reject) => {
      const late = i++ % 20 === 0 ? 900 : 10;
      time.schedule(late, () => (github.refuse() ? reject(Object.assign(new Error('refused'), { status: 403 })) : resolve('ok')));
    });
  const results = Array.from({ length: 400 }, () => budget.for(7).submit({ cls: 'queue', kind: 'merges', key: null, send }).catch(() => 'refused'));
  await time.advanceBy(40 * 60_000, async () => { for (let k = 0; k < 5; k++) await new Promise((resolve) => setImmediate(resolve)); });
  expect(await Promise.all(results)).toEqual(Array.from({ length: 400 }, () => 'ok'));
  expect(github.refused).toBe(0);
});

test('limits scaled down (150 in any ten minutes): no window of that length holds more', async () => {
  const t = setup({ perMinute: 20, perHour: 150, hourMs: 10 * 60_000 });
  for (let i = 0; i < 200; i++) void t.write(`w${i}`, 'queue');
  await t.run(30 * 60_000);
  expect(t.sent).toHaveLength(200);
  for (const { at } of t.sent) expect(t.sent.filter((s) => s.at > at - 10 * 60_000 && s.at <= at).length).toBeLessThanOrEqual(150);
  // The 151st waited for the window's first write to age out.
  expect(t.sent[150]!.at).toBeGreaterThanOrEqual(10 * 60_000);
  for (const { at } of t.sent) expect(t.sent.filter((s) => s.at > at - 60_000 && s.at <= at).length).toBeLessThanOrEqual(20);
});

test('a newer write with the same key replaces a queued one, which is never sent', async () => {
  const t = setup();
  const first = t.write('busy', 'queue');
  const pending = t.write('pending', 'low', 'status head1 ci');
  const final = t.write('success', 'final', 'status head1 ci');
  await t.run(5_000);
  expect(t.sent.map((s) => s.name)).toEqual(['busy', 'success']);
  await expect(pending).resolves.toBe(NOT_SENT);
  await expect(final).resolves.toBe('success');
  await expect(first).resolves.toBe('busy');
  expect(t.dropped).toEqual(['statuses:replaced']);
});

test('no minute holds more than the minute limit, no hour more than the hour limit', async () => {
  const t = setup({ perMinute: 10, perHour: 25 });
  for (let i = 0; i < 30; i++) void t.write(`w${i}`, 'queue');
  await t.run(3 * 60 * 60_000);
  expect(t.sent).toHaveLength(30);
  for (const { at } of t.sent) {
    expect(t.sent.filter((s) => s.at > at - 60_000 && s.at <= at).length).toBeLessThanOrEqual(10);
    expect(t.sent.filter((s) => s.at > at - 3_600_000 && s.at <= at).length).toBeLessThanOrEqual(25);
  }
  // The 26th waited for the hour's first write to age out.
  expect(t.sent[25]!.at).toBeGreaterThanOrEqual(3_600_000);
});

test('a secondary-limit refusal pauses the installation for retry-after, then the write is sent again: the caller never sees it', async () => {
  const t = setup();
  t.refuse('150');
  const merge = t.write('merge', 'queue');
  const later = t.write('status', 'final');
  await t.run(149_000);
  expect(t.sent).toEqual([]);
  await t.run(1_500);
  expect(t.sent.map((s) => s.name)).toEqual(['merge']);
  expect(t.sent[0]!.at).toBeGreaterThanOrEqual(150_000);
  await t.run(2_000);
  expect(t.sent.map((s) => s.name)).toEqual(['merge', 'status']);
  await expect(merge).resolves.toBe('merge');
  await expect(later).resolves.toBe('status');
});

test('low-class writes that waited too long are dropped; other errors reach the caller', async () => {
  const t = setup({ perMinute: 1, perHour: 500 });
  const writes = [t.write('a', 'queue')];
  for (let i = 0; i < 12; i++) writes.push(t.write(`q${i}`, 'queue'));
  const reaction = t.write('reaction', 'low');
  await t.run(15 * 60_000);
  await expect(reaction).resolves.toBe(NOT_SENT);
  expect(t.dropped).toContain('statuses:stale');
  expect(rateLimitPauseMs(Object.assign(new Error('Not Found'), { status: 404 }), 0)).toBeNull();
});

test('what counts as a write, and how urgent it is', () => {
  const p = { owner: 'acme', repo: 'widgets' };
  expect(classifyWrite('GET', '/repos/{owner}/{repo}/pulls/{pull_number}', p)).toBeNull();
  expect(classifyWrite('POST', '/app/installations/{installation_id}/access_tokens', {})).toBeNull();
  expect(classifyWrite('PATCH', '/repos/{owner}/{repo}/git/refs/{ref}', p)).toMatchObject({ cls: 'queue', kind: 'refs' });
  expect(classifyWrite('PUT', '/repos/{owner}/{repo}/pulls/{pull_number}/merge', p)).toMatchObject({ cls: 'queue', kind: 'merges' });
  expect(classifyWrite('POST', '/repos/{owner}/{repo}/statuses/{sha}', { ...p, sha: 's', context: 'c', state: 'pending' })).toEqual({ cls: 'low', kind: 'statuses', key: 'status acme/widgets s c' });
  expect(classifyWrite('POST', '/repos/{owner}/{repo}/statuses/{sha}', { ...p, sha: 's', context: 'c', state: 'success' })).toMatchObject({ cls: 'final', key: 'status acme/widgets s c' });
  expect(classifyWrite('POST', '/repos/{owner}/{repo}/issues/comments/{comment_id}/reactions', p)).toMatchObject({ cls: 'ack', kind: 'reactions' });
  expect(classifyWrite('POST', '/repos/{owner}/{repo}/issues/{issue_number}/comments', p)).toMatchObject({ cls: 'comment', key: null });
});
