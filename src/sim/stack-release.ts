import type { SimPr } from './workload.js';

/**
 * How the members of a stack reach the queue (benchmarks.md, "Stacks"): `unit`, all together with
 * their place in the stack; `one-by-one`, the status quo without stack support, each member submitted
 * once the one below it has merged (its base is not the target before that).
 */
export type Landing = 'unit' | 'one-by-one';

/** How a submitted PR stands after a reconcile: merged, ended otherwise, or still queued. */
export type Standing = 'merged' | 'ended' | 'queued';

/**
 * Which arrived PRs are submitted when. In `one-by-one` mode a member waits for the one below it;
 * when that one ends unmerged the member is never submitted, nor is any member above it.
 */
export class StackRelease {
  /** Index of the PR waited on -> the member above it. */
  private readonly waiting = new Map<number, SimPr>();
  private readonly due: SimPr[] = [];
  private readonly never: number[] = [];
  private readonly submitted = new Set<number>();

  constructor(readonly landing: Landing) {}

  /** The arrived PRs to submit now, with those released since the last call. */
  submitNow(arrived: readonly SimPr[]): SimPr[] {
    const now = this.due.splice(0);
    for (const pr of arrived) {
      if (this.landing === 'one-by-one' && pr.stack && pr.stack.position > 1) this.waiting.set(pr.index - 1, pr);
      else now.push(pr);
    }
    for (const pr of now) this.submitted.add(pr.index);
    return now;
  }

  /** After a reconcile: releases the members whose lower layer merged, drops those whose lower layer ended. */
  observe(standing: (index: number) => Standing): void {
    for (const [below, pr] of [...this.waiting]) {
      if (!this.submitted.has(below)) continue;
      const s = standing(below);
      if (s === 'queued') continue;
      this.waiting.delete(below);
      if (s === 'merged') this.due.push(pr);
      else this.drop(pr);
    }
  }

  /** Whether a release waits to be submitted (the simulation runs another tick for it). */
  hasDue(): boolean {
    return this.due.length > 0;
  }

  /** Indices of the members never submitted because a layer below them did not land. */
  notSubmitted(): number[] {
    return [...this.never].sort((a, b) => a - b);
  }

  private drop(pr: SimPr): void {
    this.never.push(pr.index);
    const above = this.waiting.get(pr.index);
    if (!above) return;
    this.waiting.delete(pr.index);
    this.drop(above);
  }
}
