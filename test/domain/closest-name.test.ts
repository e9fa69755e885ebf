import { closestName } from '../../src/domain/closest-name.js';

const QUEUE_FIELDS = ['repo', 'targetBranch', 'concurrency', 'batch', 'batchingMinSize', 'testingTimeoutMinutes', 'flakeRetries', 'flakyTestRetries', 'state'];

test.each([
  ['concurency', 'concurrency'],
  ['branch', 'targetBranch'],
  ['batchSize', 'batchingMinSize'],
  ['timeout', 'testingTimeoutMinutes'],
  ['retries', 'flakeRetries'],
  ['STATE', 'state'],
  ['target_branch', 'targetBranch'],
  ['concurrencyLimit', 'concurrency'],
])('%s → %s', (typo, meant) => {
  expect(closestName(typo, QUEUE_FIELDS)).toBe(meant);
});

test('no guess for a name nothing resembles, nor for one or two letters', () => {
  expect(closestName('zzzzzz', QUEUE_FIELDS)).toBeNull();
  expect(closestName('id', QUEUE_FIELDS)).toBeNull();
});

test('environment variable names: MERGEQ_RATE_LIMT → MERGEQ_RATE_LIMIT, MERGEQ_DATA → MERGEQ_DATA_DIR', () => {
  const vars = ['MERGEQ_RATE_LIMIT', 'MERGEQ_RATE_BURST', 'MERGEQ_DATA_DIR', 'MERGEQ_PORT'];
  expect(closestName('MERGEQ_RATE_LIMT', vars)).toBe('MERGEQ_RATE_LIMIT');
  expect(closestName('MERGEQ_DATA', vars)).toBe('MERGEQ_DATA_DIR');
});
