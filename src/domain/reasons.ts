/** Why an entry is in its state. Every transition carries one. */
export const REASON_CODES = [
  'submitted',
  'ready',
  'not_ready',
  'test_started',
  'tests_passed',
  'tests_failed',
  'test_timeout',
  'merged',
  'merged_elsewhere',
  'base_moved',
  'merge_conflict',
  'pr_updated',
  'pr_closed',
  'base_changed',
  'converted_to_draft',
  'cancelled_by_user',
  'ahead_failed',
  'ahead_cancelled',
  'ahead_merged_elsewhere',
  'readmitted',
  'restarted_by_user',
  'urgent_preemption',
  'all_targets_ahead',
  'all_targets_wait',
  'retry_passed',
  'flaky_tests',
  'overtaken',
  'suspect',
  'failure_confirmed',
  'batched',
  'bisection_started',
  'bisection_culprit',
  'bisection_cleared',
  'batch_split',
  'mode_switch',
  'direct_merge',
  'merge_held',
  'github_error',
  'not_mergeable',
  'queue_deleted',
  'restart_loop',
  'restart_budget',
  'infrastructure_retry',
  'stack_member_failed',
] as const;
export type ReasonCode = (typeof REASON_CODES)[number];

export interface Reason {
  code: ReasonCode;
  message: string;
}

export function reason(code: ReasonCode, message: string): Reason {
  return { code, message };
}
