import { commitStatusFor, commitStatusKey } from '../../src/engine/commit-status.js';
import type { Entry } from '../../src/domain/entry.js';
import { describe as describeStatus } from '../../src/github-app/handlers/comment-command.js';
import type { SubmittedPullRequestRecord } from '../../src/records/pull-request-record.js';

const pending = { state: 'PENDING', readiness: {}, history: [] } as unknown as Entry;

test('a queued PR\'s check says its place and when it should merge', () => {
  expect(commitStatusFor(pending, 3, 'main', '2026-11-22T14:05:00.000Z').description).toBe('Queued #3 · ETA 14:05 UTC');
  expect(commitStatusFor(pending, 3, 'main', null).description).toBe('Queued #3');
});

test('/merge status says the ETA, or why there is none', () => {
  const base = { state: 'PENDING', position: 2, priorityName: 'medium', reason: null, isCurrentlySubmittedToQueue: true } as SubmittedPullRequestRecord;
  expect(describeStatus({ ...base, estimatedMergeAt: '2026-11-22T14:05:00.000Z', estimateReason: null })).toContain('Estimated to merge at 14:05 UTC');
  expect(describeStatus({ ...base, estimatedMergeAt: null, estimateReason: { code: 'queue_paused', message: 'the queue is paused' } })).toContain(
    'No merge estimate: the queue is paused.',
  );
});

test('/merge status says the 80% range beside the ETA', () => {
  const base = { state: 'TESTING', position: 1, priorityName: 'medium', reason: null, isCurrentlySubmittedToQueue: true, estimateReason: null } as SubmittedPullRequestRecord;
  const estimatedMergeRange = { earliest: '2026-11-22T14:05:00.000Z', latest: '2026-11-22T14:40:00.000Z', confidence: 0.8 };
  expect(describeStatus({ ...base, estimatedMergeAt: '2026-11-22T14:20:00.000Z', estimatedMergeRange })).toContain(
    'Estimated to merge at 14:20 UTC, most likely between 14:05 and 14:40 UTC (80% of merges fall in such a range)',
  );
});

test('a passed PR held by a freeze or closed merge windows says so in its check, as its reason words it', () => {
  const held = { state: 'TESTS_PASSED', mergeIntent: null, reason: { code: 'merge_held', message: 'tests passed; frozen until 2026-12-24 18:00 UTC: release 4.2' }, readiness: {}, history: [] } as unknown as Entry;
  expect(commitStatusFor(held, 1, 'main').description).toBe('Tests passed; frozen until 2026-12-24 18:00 UTC: release 4.2');
  expect(commitStatusKey(held)).toBe('TESTS_PASSED|merge_held|tests passed; frozen until 2026-12-24 18:00 UTC: release 4.2');
  // Once the hold ends and its merge is decided, it is merging in queue order again.
  const merging = { ...held, mergeIntent: { runId: 'r1', expectedSha: 'a', requestedAt: '2026-12-24T18:00:00.000Z' } } as Entry;
  expect(commitStatusFor(merging, 1, 'main').description).toBe('Tests passed; merging in queue order');
});
