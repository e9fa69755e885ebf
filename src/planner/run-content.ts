import type { Unit } from '../domain/queue.js';
import { reason, type Reason } from '../domain/reasons.js';
import { SKIP_THE_LINE_PRIORITY } from '../domain/priority.js';
import type { TestRun } from '../domain/run.js';
import type { Draft } from './draft.js';
import { isLanding } from './invalidation.js';
import type { DependencyGraph } from './parallel/dependency-graph.js';
import { closureEntries, graphForRuns, impactsAll } from './queue-graph.js';
import { SuspectExclusion } from './suspicion.js';
import { isLanded, isSuspect, prLabel } from './units.js';

interface ChainItem {
  entryId: string;
  /** The suspect unit this entry belongs to, with its index; null for an ordinary unit. */
  suspect: { unit: Unit; index: number } | null;
}

/**
 * Which entries a unit's run contains: in single mode (rule 1) every unit ahead that has not merged
 * or been removed, then the unit itself — without the suspects ahead that it leaves out (rule 4, see
 * SuspectExclusion). In parallel mode (rule 3) only the unit's transitive dependencies ahead, taken
 * in the graph without the confirmed suspects. `ContentWalk` is fed the units in queue order.
 *
 * A unit whose merge is decided counts as merged: the engine builds a test branch only once the
 * merges ahead of it are done, so the target branch holds it. A run built before that, with it
 * inside, tests the same tree.
 */
export class ContentWalk {
  private readonly chain: ChainItem[] = [];
  private readonly exclusion: SuspectExclusion;
  private index = 0;
  private readonly hasSuspects: boolean;
  /** Parallel mode: the graph of the units as they were when the walk began. */
  private readonly graph: DependencyGraph | null;

  constructor(private readonly d: Draft) {
    this.exclusion = new SuspectExclusion(d);
    this.hasSuspects = d.units.some((u) => isSuspect(d, u));
    this.graph = d.settings.mode === 'parallel' ? graphForRuns(d) : null;
  }

  /** The content a run of `unit` (the next unit to be fed) must have. */
  contentFor(unit: Unit): string[] {
    if (this.graph) return [...closureEntries(this.d, this.graph, this.index), ...unit.entryIds];
    const out: string[] = [];
    for (const item of this.chain) {
      if (item.suspect && this.exclusion.excludes(item.suspect.unit, item.suspect.index, this.index)) continue;
      out.push(item.entryId);
    }
    for (const id of unit.entryIds) out.push(id);
    return out;
  }

  /** Whether `run` (minus the entries landed since it was built) is exactly that content. */
  matches(run: TestRun, unit: Unit): boolean {
    const expected = this.contentFor(unit);
    let i = 0;
    for (const p of run.prs) {
      if (isLanded(this.d.entry(p.entryId))) continue;
      if (p.entryId !== expected[i]) return false;
      i++;
    }
    return i === expected.length;
  }

  /** Why `run` is no longer what `unit` must test (for the restart's reason). */
  whyStale(run: TestRun, unit: Unit): Reason {
    const d = this.d;
    const expected = new Set(this.contentFor(unit));
    for (const p of run.prs) {
      if (expected.has(p.entryId)) continue;
      const e = d.entry(p.entryId);
      if (!e || isLanded(e)) continue;
      const label = prLabel(e, p.entryId);
      if (e.state === 'FAILED') return reason('ahead_failed', `${label} ahead of it failed; retesting without it`);
      if (e.state === 'PENDING_FAILURE') return reason('ahead_failed', `${label} ahead of it failed its tests; retesting without it`);
      return reason('ahead_cancelled', `${label} ahead of it left the queue; retesting without it`);
    }
    const inRun = new Set(run.prs.map((p) => p.entryId));
    for (const id of expected) {
      if (inRun.has(id)) continue;
      const e = d.entry(id);
      const label = prLabel(e, id);
      if (e && e.priorityValue <= SKIP_THE_LINE_PRIORITY && (e.readyAt ?? '') >= run.createdAt) {
        return reason('urgent_preemption', `urgent ${label} went ahead of it; retesting behind it`);
      }
      const u = d.unitOfEntry(id);
      if (this.graph && u && impactsAll(d, u) && (e?.readyAt ?? '') >= run.createdAt) {
        return reason('all_targets_ahead', `${label}, which impacts every target, is tested ahead of it; retesting on top of it`);
      }
      return reason('readmitted', `${label} ahead of it is back in the queue; retesting with it`);
    }
    return reason('readmitted', 'the pull requests ahead of it changed order; retesting');
  }

  /** Feeds the next unit in queue order. */
  push(unit: Unit): void {
    const at = this.index++;
    if (this.graph || isLanding(this.d, unit)) return;
    const suspect = this.hasSuspects && isSuspect(this.d, unit) ? { unit, index: at } : null;
    for (const id of unit.entryIds) this.chain.push({ entryId: id, suspect });
  }
}
