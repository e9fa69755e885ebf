/** flaky-tests.md: more than 80% of at least 20 tests failed is a broken runner, not 500 flaky tests. */
export const INFRASTRUCTURE_MIN_TESTS = 20;
export const INFRASTRUCTURE_FAILED_SHARE = 0.8;

export function isInfrastructureFailure(tests: number, failed: number): boolean {
  return tests >= INFRASTRUCTURE_MIN_TESTS && failed > INFRASTRUCTURE_FAILED_SHARE * tests;
}
