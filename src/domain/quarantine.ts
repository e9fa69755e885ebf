export const TEST_STATUSES = ['healthy', 'flaky', 'broken'] as const;
export type TestStatus = (typeof TEST_STATUSES)[number];
export const QUARANTINE_SETTINGS = ['always', 'never', 'auto'] as const;
export type QuarantineSetting = (typeof QUARANTINE_SETTINGS)[number];

/** A test case of a repository, as the flaky-test detector knows it. */
export interface TestCase {
  testCaseId: string;
  repoKey: string;
  name: string;
  parent: string | null;
  file: string | null;
  classname: string | null;
  variant: string | null;
  codeowners: string[];
  status: TestStatus;
  statusLastUpdatedAt: string;
  quarantineSetting: QuarantineSetting;
  /** When it entered quarantine; null when not quarantined. */
  quarantinedAt: string | null;
  /** When a result of it last failed (any attempt); detection re-reads tests that failed recently. */
  lastFailedAt?: string | null;
  firstSeenAt?: string;
}
