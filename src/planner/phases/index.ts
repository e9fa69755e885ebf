import type { Sink } from '../draft.js';
import { applyOutcomes } from './outcomes.js';
import { formPendingBatches } from './batching.js';
import { decideMerges } from './merging.js';
import { blameByTests } from './blame.js';
import { settleQueueState } from './queue-state.js';
import { updateReadiness } from './readiness.js';
import { maintainRuns } from './runs.js';
import { resolveSuspects } from './suspects.js';
import { decideVerdicts } from './verdicts.js';
import { liftEndedFreeze } from './hold.js';
import { guardRestartLoops } from './restart-loop.js';
import { maintainStacks } from './stacks.js';
import { watchStorm } from './storm.js';

/** A decision may enable another (a failure makes a passed unit behind mergeable): repeat until settled. */
const MAX_PASSES = 8;

/** The planning passes, in order, repeated until a pass decides nothing. */
export function runPhases(s: Sink): void {
  for (let pass = 0; pass < MAX_PASSES; pass++) {
    const before = countActions(s);
    liftEndedFreeze(s);
    decideVerdicts(s);
    watchStorm(s);
    guardRestartLoops(s);
    updateReadiness(s);
    maintainStacks(s);
    blameByTests(s);
    applyOutcomes(s);
    resolveSuspects(s);
    decideMerges(s);
    formPendingBatches(s);
    maintainRuns(s);
    settleQueueState(s);
    if (countActions(s) === before) return;
  }
}

function countActions(s: Sink): number {
  return s.d.actionCount;
}
