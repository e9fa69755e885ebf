import fc from 'fast-check';
import { DEFAULT_FLAKY_SETTINGS, type TestOutcome } from '../../src/domain/flaky.js';
import { isDetectionEvidence, latestFlakyCommits, type ResultEvidence } from '../../src/domain/detection-evidence.js';
import { evaluate, statusOf } from '../../src/flaky/detection-rules.js';

const NOW = new Date(Date.UTC(2026, 10, 22, 12));
const DAY = 24 * 60 * 60 * 1000;
const settings = DEFAULT_FLAKY_SETTINGS;

let seq = 0;
function result(commitSha: string, outcome: TestOutcome, options: Partial<ResultEvidence> & { daysAgo?: number } = {}): ResultEvidence {
  const { daysAgo = 1, ...rest } = options;
  seq++;
  return {
    uploadId: `u${seq}`,
    commitSha,
    branch: 'main',
    outcome,
    failedAttempts: outcome === 'failed' ? 1 : 0,
    passedAttempts: outcome === 'passed' ? 1 : 0,
    at: new Date(NOW.getTime() - daysAgo * DAY + seq).toISOString(),
    ignoredForDetection: false,
    ...rest,
  };
}

describe('detection rules', () => {
  test('a fail and a pass on the same commit is flaky, on any branch, with the commit and uploads as evidence', () => {
    const fail = result('c1', 'failed', { branch: 'mergeq/main/run-1' });
    const pass = result('c1', 'passed', { branch: 'mergeq/main/run-1' });
    expect(evaluate([fail, pass], settings, NOW)).toEqual({
      status: 'flaky',
      evidence: { commits: ['c1'], uploads: [fail.uploadId, pass.uploadId] },
    });
  });

  test('a retry that passed inside one upload is a flaky event', () => {
    expect(evaluate([result('c1', 'passed', { failedAttempts: 1, branch: 'feature' })], settings, NOW).status).toBe('flaky');
  });

  test('fail then pass on the next target-branch commit is flaky; on another branch it is not', () => {
    expect(evaluate([result('c1', 'failed'), result('c2', 'passed')], settings, NOW).status).toBe('flaky');
    expect(evaluate([result('c1', 'failed', { branch: 'dev' }), result('c2', 'passed', { branch: 'dev' })], settings, NOW).status).toBe('healthy');
  });

  test('five failures in a row on the target branch is broken; one pass ends it', () => {
    const fails = ['c1', 'c2', 'c3', 'c4', 'c5'].map((c) => result(c, 'failed'));
    expect(evaluate(fails, settings, NOW)).toMatchObject({ status: 'broken', evidence: { commits: ['c1', 'c2', 'c3', 'c4', 'c5'] } });
    expect(evaluate(fails.slice(1), settings, NOW).status).toBe('healthy');
    expect(evaluate([...fails, result('c6', 'passed')], settings, NOW).status).toBe('flaky');
  });

  test('flaky returns to healthy after flakyRecoveryDays without a flaky event', () => {
    const pair = (daysAgo: number) => [result('c1', 'failed', { daysAgo }), result('c1', 'passed', { daysAgo })];
    expect(evaluate(pair(6), settings, NOW).status).toBe('flaky');
    expect(evaluate(pair(8), settings, NOW).status).toBe('healthy');
  });

  test('flakyMinEvents: two events needed when set to 2', () => {
    const two = { ...settings, flakyMinEvents: 2 };
    const one = [result('c1', 'failed'), result('c1', 'passed')];
    expect(evaluate(one, two, NOW).status).toBe('healthy');
    expect(evaluate([...one, result('c9', 'failed', { branch: 'x' }), result('c9', 'passed', { branch: 'x' })], two, NOW).status).toBe('flaky');
  });
});

describe('detection properties over random histories', () => {
  const outcome = fc.constantFrom<TestOutcome>('passed', 'failed', 'skipped');
  const history = fc.array(
    fc.record({
      commit: fc.constantFrom('c1', 'c2', 'c3', 'c4'),
      branch: fc.constantFrom('main', 'feature', 'mergeq/main/r1'),
      outcome,
      retriedPass: fc.boolean(),
      daysAgo: fc.integer({ min: 1, max: 29 }),
      ignored: fc.boolean(),
    }),
    { maxLength: 30 },
  );
  const toResults = (h: { commit: string; branch: string; outcome: TestOutcome; retriedPass: boolean; daysAgo: number; ignored: boolean }[]) =>
    h.map((x, i) => ({
      uploadId: `u${i}`,
      commitSha: x.commit,
      branch: x.branch,
      outcome: x.outcome,
      failedAttempts: x.outcome === 'failed' || (x.outcome === 'passed' && x.retriedPass) ? 1 : 0,
      passedAttempts: x.outcome === 'passed' ? 1 : 0,
      at: new Date(NOW.getTime() - x.daysAgo * DAY + i).toISOString(),
      ignoredForDetection: x.ignored,
    }));

  test('a test never seen failing is never flaky nor broken', () => {
    fc.assert(
      fc.property(history, (h) => {
        const results = toResults(h).map((r) => ({ ...r, outcome: r.outcome === 'failed' ? ('passed' as const) : r.outcome, failedAttempts: 0 }));
        expect(evaluate(results, settings, NOW).status).toBe('healthy');
      }),
    );
  });

  test('broken outranks flaky: whenever the last target-branch runs all failed, the status is broken', () => {
    fc.assert(
      fc.property(history, (h) => {
        const results = toResults(h);
        const tail = ['f1', 'f2', 'f3', 'f4', 'f5'].map((c, i) => ({
          ...results[0]!,
          uploadId: `tail${i}`,
          commitSha: c,
          branch: 'main',
          outcome: 'failed' as const,
          failedAttempts: 1,
          passedAttempts: 0,
          ignoredForDetection: false,
          at: new Date(NOW.getTime() - 1000 + i).toISOString(),
        }));
        expect(evaluate([...results, ...tail], settings, NOW).status).toBe('broken');
      }),
    );
  });

  test('infrastructure-protected results change nothing', () => {
    fc.assert(
      fc.property(history, history, (kept, ignored) => {
        const base = toResults(kept.map((x) => ({ ...x, ignored: false })));
        const noise = toResults(ignored).map((r) => ({ ...r, uploadId: `i-${r.uploadId}`, ignoredForDetection: true }));
        expect(evaluate([...base, ...noise], settings, NOW)).toEqual(evaluate(base, settings, NOW));
      }),
    );
  });

  test('the results the detector reads (target branch, the upload commit, the latest flaky commits) give the status of the whole history', () => {
    const commits = fc.array(fc.constantFrom('c1', 'c2', 'c3', 'c4', 'c5', 'c6', 'c7', 'c8'), { minLength: 30, maxLength: 30 });
    const rules = fc.record({ flakyMinEvents: fc.integer({ min: 1, max: 3 }), brokenRuns: fc.integer({ min: 0, max: 4 }), flakyRecoveryDays: fc.integer({ min: 1, max: 14 }) });
    fc.assert(
      fc.property(history, commits, rules, fc.constantFrom('c1', 'c8', 'none'), (h, shas, over, uploadCommit) => {
        const all = toResults(h).map((r, i) => ({ ...r, commitSha: shas[i]! }));
        const rulesNow = { ...settings, ...over };
        const scope = { targetBranches: rulesNow.targetBranches, commitSha: uploadCommit, flakyCommits: rulesNow.flakyMinEvents, until: NOW.toISOString() };
        const latest = new Set(latestFlakyCommits(all, scope.until, scope.flakyCommits));
        const read = all.filter((r) => isDetectionEvidence(r, latest, scope));
        expect(statusOf(read, rulesNow, NOW)).toBe(evaluate(all, rulesNow, NOW).status);
      }),
      { numRuns: 1000 },
    );
  });
});
