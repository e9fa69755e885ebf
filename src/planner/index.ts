/**
 * The planner: the pure core of the queue. `plan()` looks at one queue document and the time and
 * says what to do next; `applyActions()` turns that into the next document; `changes/` holds every
 * other pure change of a queue document (the client commands, the facts the
 * outside world reports). Same input, same output: no I/O, no randomness, no clock of its own.
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
  recordNotMergeable,
  recordFastForwardRefused,
  recordTargetRead,
  recordPullRequest,
  recordImpactedTargets,
} from './changes/facts.js';
export { recordTargetHead, recordTargetBuiltOn, lineageOf, lineageIndex } from './target-base.js';
export {
  activeEntryFor,
  cancelEntry,
  changeSettings,
  hasRunsInFlight,
  restartEntry,
  submitEntry,
  RESTARTABLE_STATES,
  type SubmitInput,
} from './changes/commands.js';
export { recordDirectMergeFacts, requiredChecksPassed, type DirectMergeFacts } from './changes/direct-merge.js';
export { failForGitHostError } from './changes/git-host-failure.js';
export { markReported, markReporting, owesAnyFinalReport, owesFinalReport } from './changes/report-marks.js';
