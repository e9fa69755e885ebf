/**
 * The planner: the pure core of the queue. `plan()` looks at one queue document and the time and
 * says what to do next; `applyActions()` turns that into the next document; the facts record what the
 * outside world said. Same input, same output: no I/O, no randomness, no clock of its own.
 */
export type { Action, ActionType, EntryPatch } from './actions.js';
export { plan, applyActions, type PlanInput } from './plan.js';
export { nextWakeUp } from './wake-up.js';
export { archivable } from './archive.js';
export {
  recordRunCreated,
  recordRunConflict,
  recordStatusChecks,
  recordTestResults,
  recordBranchDeleted,
  recordMerged,
  recordMergeRefused,
  recordPullRequest,
  recordImpactedTargets,
} from './facts.js';
export { recordTargetHead, lineageOf, lineageIndex } from './target-base.js';
