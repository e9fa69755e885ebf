import type { QuarantineSetting, TestStatus } from '../domain/quarantine.js';

/**
 * Whether a test is quarantined: `always` and `never` decide alone; under `auto`, a flaky test is
 * quarantined when the repository's autoQuarantine is on. Broken tests are real failures: never auto.
 */
export function isQuarantined(setting: QuarantineSetting, status: TestStatus, autoQuarantine: boolean): boolean {
  if (setting === 'always') return true;
  if (setting === 'never') return false;
  return autoQuarantine && status === 'flaky';
}
