import type { FailedTest, StatusCheck } from '../domain/run.js';

/**
 * What CI reported on commits — checks, or the failed tests of an upload — kept for a while in case
 * a run is about to be recorded with that commit as its test branch head: CI can answer (and its
 * webhook or upload arrive) before the engine has written the run as created, and a result that
 * matched no run would otherwise wait for the next poll (checks) or be lost (test results). Bounded:
 * the oldest commits are forgotten first (most reports are on PR heads, which no run will claim).
 */
export class EarlyReports<T> {
  private readonly bySha = new Map<string, T[]>();

  constructor(private readonly maxCommits = 2_000) {}

  /** An empty list is kept too: an upload without failures still says the commit's tests ran. */
  keep(sha: string, checks: readonly T[]): void {
    const known = this.bySha.get(sha) ?? [];
    this.bySha.delete(sha);
    this.bySha.set(sha, [...known, ...checks]);
    if (this.bySha.size > this.maxCommits) this.bySha.delete(this.bySha.keys().next().value!);
  }

  /** What was kept for `sha`, in the order it came (read again if a commit is retried). */
  get(sha: string): readonly T[] | undefined {
    return this.bySha.get(sha);
  }
}

export class EarlyChecks extends EarlyReports<StatusCheck> {}
export class EarlyTestResults extends EarlyReports<FailedTest> {}
