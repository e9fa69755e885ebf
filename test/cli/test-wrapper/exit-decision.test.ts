import type { UploadAnswer } from '../../../src/domain/flaky.js';
import { decideExit } from '../../../src/cli/test-wrapper/exit-decision.js';

const answer = (failed: number, quarantinedFailures: number): UploadAnswer => ({
  uploadId: 'u',
  commitSha: 'c',
  tests: 10,
  failed,
  skipped: 0,
  quarantinedFailures,
  newlyFlaky: [],
  ignoredForDetection: false,
  quarantinedFailedTests: [],
  truncatedNames: 0,
});
const ok = (failed: number, q: number) => ({ kind: 'uploaded' as const, outcome: { kind: 'ok' as const, answer: answer(failed, q) } });

describe('the wrapper exit code', () => {
  test.each([
    ['failed, every failure quarantined', 1, ok(2, 2), 0],
    ['failed, one failure not quarantined', 1, ok(2, 1), 1],
    ['failed (code 3), reports show no failed test', 3, ok(0, 0), 3],
    ['failed, no fresh report', 2, { kind: 'none' as const }, 2],
    ['failed, service unavailable', 1, { kind: 'uploaded' as const, outcome: { kind: 'unavailable' as const, detail: 'ECONNREFUSED' } }, 1],
    ['failed, results refused (400)', 1, { kind: 'uploaded' as const, outcome: { kind: 'rejected' as const, status: 400, detail: 'bad xml' } }, 1],
    ['failed, token refused', 1, { kind: 'uploaded' as const, outcome: { kind: 'denied' as const, status: 401, detail: 'no' } }, 70],
    ['passed, token refused', 0, { kind: 'uploaded' as const, outcome: { kind: 'denied' as const, status: 403, detail: 'no' } }, 0],
    ['passed, service unavailable', 0, { kind: 'uploaded' as const, outcome: { kind: 'unavailable' as const, detail: 'x' } }, 0],
    ['passed, no report', 0, { kind: 'none' as const }, 0],
    ['passed, failures in the report (retried by the runner)', 0, ok(1, 0), 0],
  ])('%s', (_what, commandCode, results, expected) => {
    expect(decideExit(commandCode, results).code).toBe(expected);
  });
});
