import type { StatusCheck } from '../domain/run.js';

/**
 * Checks reported on commits, kept for a while in case a run is about to be recorded with that commit
 * as its test branch head: CI can answer (and its webhook arrive) before the engine has written the
 * run as created, and a result that matched no run would otherwise wait for the next poll. Bounded:
 * the oldest commits are forgotten first (most checks are on PR heads, which no run will claim).
 */
export class EarlyChecks {
  private readonly bySha = new Map<string, StatusCheck[]>();

  constructor(private readonly maxCommits = 2_000) {}

  keep(sha: string, checks: readonly StatusCheck[]): void {
    const known = this.bySha.get(sha) ?? [];
    this.bySha.delete(sha);
    this.bySha.set(sha, [...known, ...checks]);
    if (this.bySha.size > this.maxCommits) this.bySha.delete(this.bySha.keys().next().value!);
  }

  /** The checks kept for `sha`, in the order they came (read again if a commit is retried). */
  get(sha: string): readonly StatusCheck[] | undefined {
    return this.bySha.get(sha);
  }
}
