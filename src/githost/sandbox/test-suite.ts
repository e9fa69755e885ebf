import type { Random } from './random.js';

/**
 * The tests a sandbox repository runs in CI (flaky-tests.md, "The simulator"): steady tests that pass
 * unless a change breaks them, and a few flaky ones, each failing an attempt with its own rate. Like
 * most CI test runners (jest `--retries`, pytest-rerunfailures, Surefire `rerunFailingTestsCount`),
 * a failed test is run once more and both attempts are reported: a run fails on a flaky test only when
 * both attempts fail, and an attempt that fails then passes is what tells the detector it is flaky.
 */
export interface FlakyTestSpec {
  name: string;
  /** Chance that one attempt fails. */
  rate: number;
  /** Scripted attempts for the first runs, in order (tests and demos); then `rate` applies. */
  script?: TestAttempt[][];
}

export type TestAttempt = 'passed' | 'failed';

export interface TestSuite {
  steadyTests: number;
  flakyTests: FlakyTestSpec[];
}

export interface TestCaseRun {
  name: string;
  attempts: TestAttempt[];
}

/**
 * Flaky tests whose per-attempt rates make `runFlakeRate` of runs fail on flakes (both attempts of at
 * least one flaky test failing), so figures compare with a run-level flake rate. Rates differ per
 * test (weights 1..count): a few flaky tests flake more than others, as in real suites.
 */
export function flakyTestsFor(runFlakeRate: number, count: number): FlakyTestSpec[] {
  if (runFlakeRate <= 0 || count <= 0) return [];
  const total = -Math.log(1 - runFlakeRate);
  const weights = Array.from({ length: count }, (_, i) => i + 1);
  const sum = weights.reduce((a, b) => a + b, 0);
  // P(run survives) = prod (1 - r_i^2) = exp(-total): each test takes its share of -log.
  return weights.map((w, i) => ({ name: `flaky test ${i + 1}`, rate: Math.sqrt(1 - Math.exp(-total * (w / sum))) }));
}

/** Runs the suite once: broken tests fail every attempt; flaky tests draw their attempts. */
export function runSuite(suite: TestSuite, brokenTests: readonly string[], runNo: number, random: Random): TestCaseRun[] {
  const out: TestCaseRun[] = [];
  for (let i = 0; i < suite.steadyTests; i++) out.push({ name: `test ${i + 1}`, attempts: ['passed'] });
  for (const t of suite.flakyTests) {
    // Always draw both attempts, so one run's outcome never shifts the draws of the runs after it.
    const drawn: TestAttempt[] = [random.chance(t.rate) ? 'failed' : 'passed', random.chance(t.rate) ? 'failed' : 'passed'];
    const scripted = t.script?.[runNo - 1];
    const attempts = scripted ?? (drawn[0] === 'passed' ? ['passed' as const] : drawn);
    out.push({ name: t.name, attempts });
  }
  for (const name of brokenTests) out.push({ name, attempts: ['failed', 'failed'] });
  return out;
}

export function failedTests(run: readonly TestCaseRun[]): string[] {
  return run.filter((t) => t.attempts.at(-1) === 'failed').map((t) => t.name);
}

/** The suite's results as one JUnit document; a retried test is repeated, attempt by attempt. */
export function toJunit(run: readonly TestCaseRun[]): string {
  const cases = run.flatMap((t) =>
    t.attempts.map((a) =>
      a === 'passed'
        ? `<testcase classname="sandbox" name="${escapeXml(t.name)}"/>`
        : `<testcase classname="sandbox" name="${escapeXml(t.name)}"><failure message="AssertionError: ${escapeXml(t.name)} failed"/></testcase>`,
    ),
  );
  return `<?xml version="1.0" encoding="UTF-8"?><testsuites><testsuite name="sandbox">${cases.join('')}</testsuite></testsuites>`;
}

function escapeXml(s: string): string {
  return s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
}
