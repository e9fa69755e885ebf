import type { NamedTest, UploadAnswer } from '../../domain/flaky.js';

/** `file › classname › name`, without what is absent or repeated (jest-junit's classname is the name). */
function testName(t: NamedTest): string {
  return [t.file, t.classname === t.name ? null : t.classname, t.name].filter(Boolean).join(' › ');
}

/** The name and the id `mergeq test quarantine <id>` takes. */
function named(t: NamedTest): string {
  return `${testName(t)} [id ${t.test_case_id}]`;
}

function plural(n: number, what: string): string {
  return `${n} ${what}${n === 1 ? '' : 's'}`;
}

/**
 * What `mergeq test` says after an upload, for the CI log: the counts, then each failed test by name
 * (a forgiven one says so) and each test this upload made flaky.
 */
export function uploadReport(reports: number, a: UploadAnswer): string {
  const lines = [
    `mergeq test: ${plural(reports, 'report')}, ${a.tests} tests, ${a.failed} failed, ${plural(a.quarantinedFailures, 'quarantined failure')}${
      a.ignoredForDetection ? ' (too many failures: not used to detect flaky tests)' : ''
    }`,
  ];
  const forgiven = new Set(a.quarantinedFailedTests.map((t) => t.test_case_id));
  const failed = a.failedTests ?? [];
  for (const t of failed) if (!forgiven.has(t.test_case_id)) lines.push(`  failed: ${named(t)}`);
  if (failed.length > 0 && a.failed > failed.length) lines.push(`  … and ${plural(a.failed - failed.length, 'more failed test')} (see the JUnit reports)`);
  for (const t of a.quarantinedFailedTests) lines.push(`  forgiven (quarantined): ${named(t)}`);
  for (const t of a.newlyFlakyTests ?? []) lines.push(`  newly flaky: ${named(t)}`);
  const own = a.newlyQuarantinedFailures ?? 0;
  if (own > 0) {
    lines.push(`mergeq test: ${plural(own, 'failure')} quarantined by this run: not forgiven this time (a run never forgives its own new failure; the next runs will)`);
  }
  return `${lines.join('\n')}\n`;
}

/** The warning when `--junit` found no report to upload: a wrong glob, or reports left by an earlier run only. */
export function noReportWarning(glob: string, olderMatches: number): string {
  const why =
    olderMatches > 0
      ? `matched ${plural(olderMatches, 'file')}, none written by this run (left by an earlier run?)`
      : 'matched no file: check the glob (relative to the working directory, quoted) and where the test command writes its reports';
  return `mergeq test: warning: --junit '${glob}' ${why}; nothing was uploaded\n`;
}
