import type { Entry } from '../domain/entry.js';
import type { QueueDoc } from '../domain/queue.js';
import type { TestRun } from '../domain/run.js';

/** CI runs of one cause: started, and of those cancelled before they finished. */
export interface CauseCount {
  started: number;
  cancelled: number;
}

/**
 * Why each run was started, read from the queue after each reconcile (benchmarks.md, "Stacks"):
 * `bisection` (a prefix probe), `flaky rerun` (a run that failed only on known flaky tests, rerun),
 * `rerun` (any other rerun of a suspect), or, for a unit's run at its place, the reason code that
 * put it back to PENDING — `ready` for its first run, `ahead_failed`, `readmitted`, `retry_passed`
 * (a tail retest), `batch_split`… A run created and cancelled within one reconcile is not seen.
 */
export class RunCauses {
  private readonly cause = new Map<string, string>();
  private readonly cancelled = new Set<string>();

  observe(doc: QueueDoc): void {
    let byId: Map<string, Entry> | undefined;
    for (const run of doc.runs) {
      if (!this.cause.has(run.id)) {
        byId ??= new Map(doc.entries.map((e) => [e.id, e]));
        this.cause.set(run.id, causeOf(run, byId));
      }
      if (run.status === 'cancelled') this.cancelled.add(run.id);
    }
  }

  /** The runs' final statuses (the archived ones and those still in the queue at the close). */
  settle(runs: readonly TestRun[]): void {
    for (const run of runs) if (run.status === 'cancelled') this.cancelled.add(run.id);
  }

  counts(): Record<string, CauseCount> {
    const out: Record<string, CauseCount> = {};
    for (const [id, cause] of this.cause) {
      const c = (out[cause] ??= { started: 0, cancelled: 0 });
      c.started++;
      if (this.cancelled.has(id)) c.cancelled++;
    }
    return Object.fromEntries(Object.entries(out).sort(([, a], [, b]) => b.started - a.started));
  }
}

function causeOf(run: TestRun, entries: ReadonlyMap<string, Entry>): string {
  if (run.kind === 'bisection') return 'bisection';
  const deps = new Set(run.dependencyEntryIds);
  const own = run.prs.find((p) => !deps.has(p.entryId));
  const e = own && entries.get(own.entryId);
  if (run.attempt > 0) return e?.reason?.code === 'flaky_tests' ? 'flaky rerun' : 'rerun';
  if (!e) return 'unknown';
  for (let i = e.history.length - 1; i >= 0; i--) {
    const t = e.history[i]!;
    if (t.state === 'PENDING') return t.reason.code;
  }
  return 'unknown';
}

/** `cause started (cancelled)` pairs on one line. */
export function formatCauses(counts: Record<string, CauseCount>): string {
  return Object.entries(counts)
    .map(([cause, c]) => `${cause} ${c.started}${c.cancelled > 0 ? ` (${c.cancelled} cancelled)` : ''}`)
    .join(', ');
}
