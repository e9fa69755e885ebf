import type { Entry } from '../domain/entry.js';
import type { QueueDoc, Unit } from '../domain/queue.js';
import type { TestRun } from '../domain/run.js';
import type { TargetSet } from '../domain/targets.js';
import { transition } from '../domain/transition.js';
import type { Action } from './actions.js';

/**
 * A mutable working copy of a queue document. The planner decides step by step on it, and every
 * step is an Action applied through `apply`, so `applyActions` replays a plan to the very same
 * document. Objects of the input document are never mutated: changed entries and runs are copies.
 */
export class Draft {
  readonly base: QueueDoc;
  state: QueueDoc['state'];
  switching: QueueDoc['switching'];
  settings: QueueDoc['settings'];
  freeze: QueueDoc['freeze'];
  storm: QueueDoc['storm'];
  stormWatch: QueueDoc['stormWatch'];
  nextSeq: number;
  readonly entries: Map<string, Entry>;
  units: Unit[];
  readonly runs: Map<string, TestRun>;
  private unitIndexCache: Map<string, number> | null = null;
  private unitOfEntryCache: Map<string, Unit> | null = null;

  /** Bumped whenever queue order changes (keys `graphCache`). */
  unitsEpoch = 0;
  /** Dependency graphs of this draft's units (parallel mode), see queue-graph.ts. */
  readonly graphCache = new Map<string, unknown>();

  constructor(
    queue: QueueDoc,
    readonly now: Date,
    /** Impacted targets by entry id; only parallel mode reads them. */
    readonly targets: ReadonlyMap<string, TargetSet> = new Map(),
  ) {
    this.base = queue;
    this.state = queue.state;
    this.switching = queue.switching;
    this.settings = queue.settings;
    this.freeze = queue.freeze;
    this.storm = queue.storm;
    this.stormWatch = queue.stormWatch;
    this.nextSeq = queue.nextSeq;
    this.entries = new Map(queue.entries.map((e) => [e.id, e]));
    this.units = queue.units.slice();
    this.runs = new Map(queue.runs.map((r) => [r.id, r]));
  }

  /** Whether the queue's CI is known to upload test results (see QueueDoc). */
  get testResultsSeenAt(): string | undefined {
    return this.base.testResultsSeenAt;
  }

  get nowIso(): string {
    return this.now.toISOString();
  }

  entry(id: string): Entry | undefined {
    return this.entries.get(id);
  }

  run(id: string | null | undefined): TestRun | undefined {
    return id ? this.runs.get(id) : undefined;
  }

  /** Index of each unit in queue order. */
  unitIndex(): Map<string, number> {
    if (!this.unitIndexCache) this.unitIndexCache = new Map(this.units.map((u, i) => [u.id, i]));
    return this.unitIndexCache;
  }

  unitOfEntry(entryId: string): Unit | undefined {
    if (!this.unitOfEntryCache) {
      const m = new Map<string, Unit>();
      for (const u of this.units) for (const id of u.entryIds) m.set(id, u);
      this.unitOfEntryCache = m;
    }
    return this.unitOfEntryCache.get(entryId);
  }

  unitEntries(unit: Unit): Entry[] {
    const out: Entry[] = [];
    for (const id of unit.entryIds) {
      const e = this.entries.get(id);
      if (e) out.push(e);
    }
    return out;
  }

  private unitsChanged(): void {
    this.unitIndexCache = null;
    this.unitOfEntryCache = null;
    this.unitsEpoch++;
  }

  /** Actions applied so far (lets the planner see whether a pass decided anything). */
  actionCount = 0;

  apply(action: Action): void {
    this.actionCount++;
    switch (action.type) {
      case 'transition': {
        const e = this.mustEntry(action.entryId);
        this.entries.set(e.id, { ...transition(e, action.to, action.reason, this.now), ...(action.set ?? {}) });
        return;
      }
      case 'patchEntry': {
        const e = this.mustEntry(action.entryId);
        this.entries.set(e.id, { ...e, ...action.set });
        return;
      }
      case 'placeUnit': {
        // A new unit (with a sequence number) cannot be in the queue yet; a moved one can.
        const existing = action.seq === null ? this.units.findIndex((u) => u.id === action.unit.id) : -1;
        if (existing >= 0) this.units.splice(existing, 1);
        const index = Math.max(0, Math.min(action.index, this.units.length));
        this.units.splice(index, 0, { ...action.unit, entryIds: action.unit.entryIds.slice() });
        if (action.seq !== null) this.nextSeq = Math.max(this.nextSeq, action.seq + 1);
        this.unitsChanged();
        return;
      }
      case 'unplaceEntry': {
        const unit = this.unitOfEntry(action.entryId);
        if (!unit) return;
        const i = this.units.indexOf(unit);
        const rest = unit.entryIds.filter((id) => id !== action.entryId);
        if (rest.length === 0) this.units.splice(i, 1);
        else this.units[i] = { ...unit, entryIds: rest };
        this.unitsChanged();
        return;
      }
      case 'createRun': {
        this.runs.set(action.run.id, action.run);
        this.nextSeq = Math.max(this.nextSeq, action.seq + 1);
        return;
      }
      case 'finishRun': {
        const r = this.mustRun(action.runId);
        this.runs.set(r.id, { ...r, status: action.status, finishedAt: this.nowIso });
        return;
      }
      case 'cancelRun': {
        const r = this.mustRun(action.runId);
        this.runs.set(r.id, {
          ...r,
          status: 'cancelled',
          cancelReason: action.reason,
          finishedAt: r.finishedAt ?? this.nowIso,
        });
        return;
      }
      case 'setStorm': {
        this.stormWatch = action.watch;
        this.storm = action.storm;
        return;
      }
      case 'endFreeze': {
        this.freeze = null;
        return;
      }
      case 'setQueueState': {
        this.state = action.state;
        this.switching = action.switching;
        if (action.mode) this.settings = { ...this.settings, mode: action.mode };
        return;
      }
    }
  }

  private mustEntry(id: string): Entry {
    const e = this.entries.get(id);
    if (!e) throw new Error(`planner: no entry ${id}`);
    return e;
  }

  private mustRun(id: string): TestRun {
    const r = this.runs.get(id);
    if (!r) throw new Error(`planner: no run ${id}`);
    return r;
  }

  toDoc(): QueueDoc {
    return {
      ...this.base,
      state: this.state,
      switching: this.switching,
      settings: this.settings,
      ...(this.freeze === undefined ? {} : { freeze: this.freeze }),
      ...(this.storm === undefined ? {} : { storm: this.storm }),
      ...(this.stormWatch === undefined ? {} : { stormWatch: this.stormWatch }),
      nextSeq: this.nextSeq,
      entries: [...this.entries.values()],
      units: this.units,
      runs: [...this.runs.values()],
    };
  }
}

/** Where decisions go: the planner records them as actions; facts just apply them. */
export interface Sink {
  readonly d: Draft;
  emit(action: Action): void;
}

export function applyingSink(d: Draft): Sink {
  return { d, emit: (a) => d.apply(a) };
}

export class RecordingSink implements Sink {
  readonly actions: Action[] = [];
  constructor(readonly d: Draft) {}
  emit(action: Action): void {
    this.actions.push(action);
    this.d.apply(action);
  }
}
