import { describe, expect, it } from '@jest/globals';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse } from 'yaml';

/**
 * The alert rules shipped in deploy/prometheus: valid (`promtool check rules`), their unit tests pass
 * (`promtool test rules`), and every alert is tested both firing and staying silent.
 */
const DIR = join(dirname(fileURLToPath(import.meta.url)), '..', '..', 'deploy', 'prometheus');
const RULES = join(DIR, 'mergeq-rules.yml');
const TESTS = ['mergeq-rules.test.yml', 'mergeq-rules-week.test.yml'].map((f) => join(DIR, f));

/** Fails (never skips) when promtool is not installed. */
function promtool(...args: string[]): { status: number | null; output: string } {
  const result = spawnSync('promtool', args, { encoding: 'utf8', cwd: DIR });
  if (result.error) {
    throw new Error(
      `promtool could not be run (${result.error.message}). Install it with ` +
        '`apt-get update && apt-get install -y --no-install-recommends prometheus` (Debian package `prometheus`).',
    );
  }
  return { status: result.status, output: `${result.stdout}${result.stderr}`.trim() };
}

interface RulesFile {
  groups: { rules: { alert?: string; record?: string }[] }[];
}
interface TestsFile {
  tests: { alert_rule_test?: { alertname: string; exp_alerts?: unknown[] }[] }[];
}

describe('deploy/prometheus/mergeq-rules.yml', () => {
  it('passes promtool check rules', () => {
    const result = promtool('check', 'rules', RULES);
    expect(result.status).toBe(0);
    expect(result.output).toContain('SUCCESS');
  });

  it('passes its promtool unit tests', () => {
    const result = promtool('test', 'rules', ...TESTS);
    expect(result.output).not.toContain('FAILED');
    expect(result.status).toBe(0);
  }, 120_000);

  it('has every alert tested both firing and silent', () => {
    const alerts = (parse(readFileSync(RULES, 'utf8')) as RulesFile).groups.flatMap((g) => g.rules.flatMap((r) => (r.alert ? [r.alert] : [])));
    const cases = TESTS.flatMap((file) => (parse(readFileSync(file, 'utf8')) as TestsFile).tests.flatMap((t) => t.alert_rule_test ?? []));
    const tested = (alert: string, firing: boolean) => cases.some((c) => c.alertname === alert && (c.exp_alerts?.length ?? 0) > 0 === firing);
    expect(alerts).toEqual([
      'MergeqQueueStuck',
      'MergeqCiSilent',
      'MergeqTimeInQueueHigh',
      'MergeqFlakeRerunsRising',
      'MergeqEtaCoverageDrifting',
      'MergeqGitHubWriteBudgetLow',
    ]);
    expect(alerts.filter((a) => !tested(a, true))).toEqual([]);
    expect(alerts.filter((a) => !tested(a, false))).toEqual([]);
  });

  it('and promtool does catch a failing expectation (the unit tests are real)', () => {
    const original = readFileSync(TESTS[0]!, 'utf8').replace('  - mergeq-rules.yml', `  - ${RULES}`);
    const broken = original.replace(
      'eval_time: 65m\n        alertname: MergeqQueueStuck\n        exp_alerts: []',
      'eval_time: 65m\n        alertname: MergeqQueueStuck\n        exp_alerts: [{exp_labels: {severity: critical}}]',
    );
    expect(broken).not.toBe(original);
    const dir = mkdtempSync(join(tmpdir(), 'mergeq-rules-'));
    try {
      writeFileSync(join(dir, 'broken.test.yml'), broken);
      expect(promtool('test', 'rules', join(dir, 'broken.test.yml')).status).not.toBe(0);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 60_000);
});
