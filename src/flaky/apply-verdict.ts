import type { Evidence, TestCaseEvent } from '../domain/flaky.js';
import type { QuarantineSetting, TestCase, TestStatus } from '../domain/quarantine.js';
import { isQuarantined } from './quarantine-rule.js';

export interface Change {
  testCase: TestCase;
  events: TestCaseEvent[];
  changed: boolean;
}

/**
 * A test case with a new status and/or quarantine setting, its quarantine recomputed, and the events
 * that say what changed. `quarantinedAt` is set on entering quarantine and cleared on leaving it.
 */
export function applyVerdict(
  tc: TestCase,
  next: { status?: { to: TestStatus; evidence: Evidence }; setting?: { to: QuarantineSetting; by: string; reason: string | null } },
  autoQuarantine: boolean,
  now: string,
): Change {
  const events: TestCaseEvent[] = [];
  const ref = { repoKey: tc.repoKey, testCaseId: tc.testCaseId, at: now };
  let updated = tc;
  if (next.status && next.status.to !== tc.status) {
    events.push({ kind: 'status', ...ref, from: tc.status, to: next.status.to, evidence: next.status.evidence });
    updated = { ...updated, status: next.status.to, statusLastUpdatedAt: now };
  }
  if (next.setting && next.setting.to !== tc.quarantineSetting) {
    const { to, by, reason } = next.setting;
    events.push({ kind: 'quarantine_setting', ...ref, from: tc.quarantineSetting, to, by, reason });
    updated = { ...updated, quarantineSetting: to };
  }
  const quarantined = isQuarantined(updated.quarantineSetting, updated.status, autoQuarantine);
  if (quarantined !== (updated.quarantinedAt !== null)) {
    events.push({ kind: 'quarantine', ...ref, quarantined });
    updated = { ...updated, quarantinedAt: quarantined ? now : null };
  }
  return { testCase: updated, events, changed: updated !== tc };
}
