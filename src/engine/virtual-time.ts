import type { Clock } from '../domain/clock.js';
import type { Scheduler, TimerHandle } from '../domain/scheduler.js';

interface VirtualTimer {
  at: number;
  order: number;
  fn: () => void;
  cancelled: boolean;
}

/**
 * A clock and scheduler whose time only moves when told to. Timers fire in time order (ties in the
 * order they were scheduled), each at its own instant.
 */
export class VirtualTime implements Clock, Scheduler {
  private nowMs: number;
  private nextOrder = 0;
  private timers: VirtualTimer[] = [];

  constructor(start: Date | number = Date.UTC(2026, 0, 5, 9, 0, 0)) {
    this.nowMs = typeof start === 'number' ? start : start.getTime();
  }

  now(): Date {
    return new Date(this.nowMs);
  }

  nowMillis(): number {
    return this.nowMs;
  }

  schedule(delayMs: number, fn: () => void): TimerHandle {
    const timer: VirtualTimer = { at: this.nowMs + Math.max(0, delayMs), order: this.nextOrder++, fn, cancelled: false };
    this.insert(timer);
    return { cancel: () => (timer.cancelled = true) };
  }

  /** When the next live timer fires, or null when none is scheduled. */
  nextTimerAt(): number | null {
    this.dropCancelledHead();
    return this.timers[0]?.at ?? null;
  }

  /**
   * Moves time to `untilMs`, firing every timer due on the way. `settle` runs after each timer (e.g.
   * to let the reconciles it triggered finish) before time moves on.
   */
  async advanceTo(untilMs: number, settle?: () => Promise<void>): Promise<void> {
    for (;;) {
      // Work already under way may schedule timers that are due before `untilMs`.
      if (settle) await settle();
      this.dropCancelledHead();
      const next = this.timers[0];
      if (!next || next.at > untilMs) break;
      this.timers.shift();
      this.nowMs = Math.max(this.nowMs, next.at);
      next.fn();
    }
    this.nowMs = Math.max(this.nowMs, untilMs);
  }

  advanceBy(ms: number, settle?: () => Promise<void>): Promise<void> {
    return this.advanceTo(this.nowMs + ms, settle);
  }

  /** Fires every due timer without moving time (for drivers that move time themselves). */
  fireDue(): number {
    let fired = 0;
    for (;;) {
      this.dropCancelledHead();
      const next = this.timers[0];
      if (!next || next.at > this.nowMs) return fired;
      this.timers.shift();
      next.fn();
      fired++;
    }
  }

  /** Sets the time without firing timers; use fireDue() afterwards. Time never goes back. */
  setNow(ms: number): void {
    this.nowMs = Math.max(this.nowMs, ms);
  }

  private dropCancelledHead(): void {
    while (this.timers[0]?.cancelled) this.timers.shift();
  }

  /** Binary insertion keeps the list sorted by (at, order); timers are few enough for an array. */
  private insert(timer: VirtualTimer): void {
    let lo = 0;
    let hi = this.timers.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      const t = this.timers[mid]!;
      if (t.at < timer.at || (t.at === timer.at && t.order < timer.order)) lo = mid + 1;
      else hi = mid;
    }
    this.timers.splice(lo, 0, timer);
  }
}
