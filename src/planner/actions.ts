import type { Entry, EntryHold, MergeIntent } from '../domain/entry.js';
import type { Unit } from '../domain/queue.js';
import type { Reason } from '../domain/reasons.js';
import type { TestRun } from '../domain/run.js';
import type { QueueMode } from '../domain/settings.js';
import type { PrState, QueueState } from '../domain/states.js';
import type { QueueDoc } from '../domain/queue.js';
import type { QueueStorm, StormWatch } from '../domain/storm.js';

/** Entry fields an action may set besides its state. */
export interface EntryPatch {
  testRunId?: string | null;
  retriesUsed?: number;
  readyAt?: string | null;
  mergeIntent?: MergeIntent | null;
  hold?: EntryHold | null;
}

/**
 * What the planner decided, one small step each. `applyActions` replays them in order, so a plan is
 * its own audit log; the engine only logs them and derives its side effects from the new document.
 */
export type Action =
  /** An entry changes state (recorded in its history with the reason). */
  | { type: 'transition'; entryId: string; to: PrState; reason: Reason; set?: EntryPatch }
  /** An entry changes fields without changing state (e.g. adopts another run as its deciding run). */
  | { type: 'patchEntry'; entryId: string; set: EntryPatch }
  /** A unit takes its place in queue order (`index` into the units as they are at that moment). */
  | { type: 'placeUnit'; unit: Unit; index: number; seq: number | null }
  /** An entry leaves queue order (it stays in the document). */
  | { type: 'unplaceEntry'; entryId: string }
  | { type: 'createRun'; run: TestRun; seq: number }
  /** A run in flight gets its verdict from its status checks or its timeout. */
  | { type: 'finishRun'; runId: string; status: 'passed' | 'failed' | 'timed_out' }
  /** A run in flight, or a passed result that may no longer be used, is dropped. */
  | { type: 'cancelRun'; runId: string; reason: string }
  /** The storm ledger moved on (runs ended, aged out, or something merged); `storm`: the storm in force or null. */
  | { type: 'setStorm'; watch: StormWatch; storm: QueueStorm | null }
  /** The queue's freeze has reached its `endsAt`: it is lifted. */
  | { type: 'endFreeze' }
  | {
      type: 'setQueueState';
      state: QueueState;
      switching: QueueDoc['switching'];
      mode?: QueueMode;
    };

export type ActionType = Action['type'];

export type { Entry };
