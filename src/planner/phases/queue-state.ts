import type { Sink } from '../draft.js';
import { isInFlight } from '../../domain/run.js';

/**
 * draining -> paused, and switching_modes -> the new mode and the state to return to, once nothing
 * is in flight: no run without a verdict and no merge decided but not done.
 */
export function settleQueueState(s: Sink): void {
  const d = s.d;
  if (d.state !== 'draining' && d.state !== 'switching_modes') return;
  for (const run of d.runs.values()) if (isInFlight(run)) return;
  for (const e of d.entries.values()) if (e.mergeIntent) return;
  if (d.state === 'draining') {
    s.emit({ type: 'setQueueState', state: 'paused', switching: null });
    return;
  }
  const sw = d.switching;
  if (!sw) {
    s.emit({ type: 'setQueueState', state: 'running', switching: null });
    return;
  }
  s.emit({ type: 'setQueueState', state: sw.returnTo, switching: null, mode: sw.toMode });
}
