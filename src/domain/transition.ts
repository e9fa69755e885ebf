import type { Entry } from './entry.js';
import type { Reason } from './reasons.js';
import type { PrState } from './states.js';

/** Returns the entry moved to `to`, with the transition recorded in its history. */
export function transition(entry: Entry, to: PrState, why: Reason, now: Date): Entry {
  const at = now.toISOString();
  return {
    ...entry,
    state: to,
    stateChangedAt: at,
    reason: why,
    history: [...entry.history, { state: to, at, reason: why }],
  };
}
