import type { Sink } from '../draft.js';
import { isInFlight } from '../../domain/run.js';
import { verdictOf } from '../verdict.js';

/** Runs in flight get their verdict (rule 7 included): results are recorded in every queue state. */
export function decideVerdicts(s: Sink): void {
  const timeout = s.d.settings.testingTimeoutMinutes;
  for (const run of [...s.d.runs.values()]) {
    if (!isInFlight(run)) continue;
    const v = verdictOf(run, timeout, s.d.now);
    if (v) s.emit({ type: 'finishRun', runId: run.id, status: v });
  }
}
