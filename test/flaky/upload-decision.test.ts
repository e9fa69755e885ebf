import { DEFAULT_FLAKY_SETTINGS, type TestOutcome, type TestResult } from '../../src/domain/flaky.js';
import type { TestCase } from '../../src/domain/quarantine.js';
import type { UploadedTestCase } from '../../src/flaky/group-attempts.js';
import {
  changesOnEvidence,
  failedTestsForQueue,
  learnedCase,
  mayChangeStatus,
  statusChange,
  isIgnoredForDetection,
  uploadAnswer,
  uploadResult,
  windowStart,
  type IdentifiedCase,
  type UploadMeta,
  type UploadOutcome,
} from '../../src/flaky/upload-decision.js';

const NOW = new Date(Date.UTC(2026, 10, 22, 12));
const DAY = 24 * 60 * 60 * 1000;
const settings = DEFAULT_FLAKY_SETTINGS;
const REPO = 'github.com/acme/widgets';
const meta: UploadMeta = { repoKey: REPO, uploadId: 'now', commitSha: 'c9', branch: 'feature', at: NOW.toISOString() };

function uploaded(id: string, outcome: TestOutcome, attempts: { failed?: number; passed?: number } = {}): IdentifiedCase {
  const c: UploadedTestCase = {
    file: 'test/cart.test.ts',
    classname: null,
    parent: 'cart',
    name: `test ${id}`,
    variant: null,
    outcome,
    failedAttempts: attempts.failed ?? (outcome === 'failed' ? 1 : 0),
    passedAttempts: attempts.passed ?? (outcome === 'passed' ? 1 : 0),
  };
  return { id, c };
}

function stored(id: string, overrides: Partial<TestCase> = {}): TestCase {
  return {
    testCaseId: id,
    repoKey: REPO,
    name: `test ${id}`,
    parent: 'cart',
    file: 'test/cart.test.ts',
    classname: null,
    variant: null,
    codeowners: [],
    status: 'healthy',
    statusLastUpdatedAt: new Date(NOW.getTime() - 30 * DAY).toISOString(),
    quarantineSetting: 'auto',
    quarantinedAt: null,
    lastFailedAt: null,
    firstSeenAt: new Date(NOW.getTime() - 30 * DAY).toISOString(),
    ...overrides,
  };
}

let seq = 0;
function result(id: string, commitSha: string, outcome: TestOutcome, daysAgo: number, branch = 'main'): TestResult {
  seq++;
  return {
    repoKey: REPO,
    testCaseId: id,
    uploadId: `u${seq}`,
    commitSha,
    branch,
    outcome,
    failedAttempts: outcome === 'failed' ? 1 : 0,
    passedAttempts: outcome === 'passed' ? 1 : 0,
    at: new Date(NOW.getTime() - daysAgo * DAY + seq).toISOString(),
    ignoredForDetection: false,
  };
}

describe('an upload’s decisions', () => {
  test.each([
    ['a retry that passed in this upload makes the test newly flaky and quarantines it', [], { failed: 1, passed: 1 }, 'flaky', true, true],
    ['a failure now on a commit that passed earlier makes the test newly flaky and quarantines it', [['c9', 'passed', 1, 'feature']], { failed: 1, passed: 0 }, 'flaky', true, true],
    ['a failure after four failures on the target branch makes the test broken, never auto-quarantined', [1, 2, 3, 4].map((d) => [`m${d}`, 'failed', d, 'main'] as const), { failed: 1, passed: 0 }, 'broken', false, false],
  ] as const)('%s', (_case, before, attempts, status, newlyFlaky, quarantined) => {
    const now = uploaded('t1', attempts.passed > 0 ? 'passed' : 'failed', attempts);
    const thisUpload = uploadResult({ ...meta, branch: status === 'broken' ? 'main' : 'feature' }, now, false);
    const history = [...before.map(([sha, outcome, daysAgo, branch]) => result('t1', sha, outcome, daysAgo, branch)), thisUpload];
    const tc = stored('t1', { lastFailedAt: NOW.toISOString() });

    expect(changesOnEvidence(tc, history, settings, NOW)).toBe(true);
    const change = statusChange(tc, history, settings, NOW)!;
    expect(change.testCase.status).toBe(status);
    expect(change.newlyFlaky).toBe(newlyFlaky);
    expect(change.testCase.quarantinedAt !== null).toBe(quarantined);
    expect(change.events.map((e) => e.kind)).toEqual(quarantined ? ['status', 'quarantine'] : ['status']);
  });

  test('a flaky test without a flaky event for 7 days becomes healthy and leaves quarantine', () => {
    const tc = stored('t1', { status: 'flaky', quarantinedAt: new Date(NOW.getTime() - 8 * DAY).toISOString() });
    const history = [result('t1', 'c1', 'failed', 8, 'feature'), result('t1', 'c1', 'passed', 8, 'feature')];
    expect(mayChangeStatus(tc, windowStart(settings, NOW))).toBe(true);
    const change = statusChange(tc, history, settings, NOW)!;
    expect(change.testCase).toMatchObject({ status: 'healthy', quarantinedAt: null });
    expect(change.newlyFlaky).toBe(false);
  });

  test('a test whose results change nothing is not read whole, and has no change', () => {
    const tc = stored('t1');
    const history = [result('t1', 'c1', 'passed', 1), result('t1', 'c2', 'passed', 0)];
    expect(changesOnEvidence(tc, history, settings, NOW)).toBe(false);
    expect(statusChange(tc, history, settings, NOW)).toBeNull();
  });

  test.each([
    ['healthy and never failed: cannot change', {}, false],
    ['healthy, failed within the window: may change', { lastFailedAt: new Date(NOW.getTime() - 3 * DAY).toISOString() }, true],
    ['healthy, failed before the window: cannot change', { lastFailedAt: new Date(NOW.getTime() - 20 * DAY).toISOString() }, false],
    ['flaky: may heal', { status: 'flaky' as const }, true],
    ['broken: may heal', { status: 'broken' as const }, true],
    ['healthy but quarantined by hand: may change', { quarantineSetting: 'always' as const, quarantinedAt: NOW.toISOString() }, true],
  ])('a stored test case %s', (_case, overrides, expected) => {
    expect(mayChangeStatus(stored('t1', overrides), windowStart(settings, NOW))).toBe(expected);
  });

  test.each([
    ['never seen: a new healthy test case, written', undefined, false, 'passed', { status: 'healthy', lastFailedAt: null }, true],
    ['never seen and failed: written with its failure', undefined, false, 'failed', { status: 'healthy', lastFailedAt: NOW.toISOString() }, true],
    ['stored, read, failed now: its failure time written', stored('t1'), true, 'failed', { lastFailedAt: NOW.toISOString() }, true],
    ['stored, read, passed: unchanged', stored('t1', { status: 'flaky' }), true, 'passed', { status: 'flaky', lastFailedAt: null }, false],
  ] as const)('%s', (_case, read, exists, outcome, expected, dirty) => {
    const learned = learnedCase(read, exists, uploaded('t1', outcome), meta, false)!;
    expect(learned.testCase).toMatchObject(expected);
    expect(learned.dirty).toBe(dirty);
  });

  test('a stored test case that was not read is left alone', () => {
    expect(learnedCase(undefined, true, uploaded('t1', 'passed'), meta, false)).toBeNull();
  });

  test('a broken runner (over 80% of 20 tests failed) drives no detection: no failure times, nothing told to the queue', () => {
    const cases = Array.from({ length: 20 }, (_, i) => uploaded(`t${i}`, i < 17 ? 'failed' : 'passed'));
    expect(isIgnoredForDetection(cases.map(({ c }) => c))).toBe(true);
    expect(isIgnoredForDetection(cases.slice(1).map(({ c }) => c))).toBe(false);
    expect(learnedCase(stored('t0'), true, cases[0]!, meta, true)).toMatchObject({ testCase: { lastFailedAt: null }, dirty: false });
    const outcome = anOutcome({ cases, ignoredForDetection: true });
    expect(failedTestsForQueue(outcome)).toEqual([]);
    expect(uploadAnswer(outcome)).toMatchObject({ tests: 20, failed: 17, ignoredForDetection: true });
  });

  describe('forgiveness (a run never forgives its own new failure)', () => {
    const cases = [uploaded('before', 'failed'), uploaded('now', 'failed'), uploaded('never', 'failed'), uploaded('ok', 'passed')];
    const after = new Map([
      ['before', stored('before', { status: 'flaky', quarantinedAt: new Date(NOW.getTime() - DAY).toISOString() })],
      ['now', stored('now', { status: 'flaky', quarantinedAt: NOW.toISOString() })],
      ['never', stored('never')],
    ]);
    const outcome = anOutcome({ cases, quarantinedBefore: new Set(['before']), after, newlyFlaky: ['now'] });

    test.each([
      ['quarantined before this upload: forgiven', 'before', true],
      ['quarantined by this very upload: not forgiven', 'now', false],
      ['not quarantined: not forgiven', 'never', false],
    ])('a failure of a test %s', (_case, id, forgiven) => {
      expect(uploadAnswer(outcome).quarantinedFailedTests.some((t) => t.test_case_id === id)).toBe(forgiven);
    });

    test('the answer counts them, names the newly flaky, and the queue hears which failures are flaky or quarantined now', () => {
      expect(uploadAnswer(outcome)).toMatchObject({
        tests: 4,
        failed: 3,
        skipped: 0,
        quarantinedFailures: 1,
        newlyQuarantinedFailures: 1,
        newlyFlaky: ['now'],
        newlyFlakyTests: [{ test_case_id: 'now', name: 'test now', classname: null, file: 'test/cart.test.ts' }],
      });
      expect(failedTestsForQueue(outcome)).toEqual([
        { testCaseId: 'before', name: 'test before', knownFlaky: true, quarantined: true },
        { testCaseId: 'now', name: 'test now', knownFlaky: true, quarantined: true },
        { testCaseId: 'never', name: 'test never', knownFlaky: false, quarantined: false },
      ]);
    });
  });

  test('an upload with no testcase says so', () => {
    expect(uploadAnswer(anOutcome({ cases: [] }))).toMatchObject({ tests: 0, note: 'the upload holds no testcase: nothing to learn from it' });
  });
});

function anOutcome(overrides: Partial<UploadOutcome>): UploadOutcome {
  return {
    uploadId: 'now',
    commitSha: 'c9',
    cases: [],
    truncatedNames: 0,
    ignoredForDetection: false,
    quarantinedBefore: new Set(),
    after: new Map(),
    newlyFlaky: [],
    ...overrides,
  };
}
