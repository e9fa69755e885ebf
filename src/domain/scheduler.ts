/**
 * The timer port: real timers in the service, virtual ones in tests and the simulator (where time
 * only moves when the driver advances it).
 */
export interface TimerHandle {
  cancel(): void;
}

export interface Scheduler {
  /** Runs `fn` once, `delayMs` from now (on the scheduler's own clock). */
  schedule(delayMs: number, fn: () => void): TimerHandle;
}

export const realScheduler: Scheduler = {
  schedule(delayMs, fn) {
    const timer = setTimeout(fn, Math.max(0, delayMs));
    // A pending wake-up must not keep the process alive on its own (shutdown is explicit).
    timer.unref?.();
    return { cancel: () => clearTimeout(timer) };
  },
};
