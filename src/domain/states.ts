export const PR_STATES = [
  'NOT_READY',
  'PENDING',
  'TESTING',
  'TESTS_PASSED',
  'MERGED',
  'FAILED',
  'CANCELLED',
  'PENDING_FAILURE',
] as const;
export type PrState = (typeof PR_STATES)[number];

export const ACTIVE_STATES: ReadonlySet<PrState> = new Set<PrState>([
  'NOT_READY',
  'PENDING',
  'TESTING',
  'TESTS_PASSED',
  'PENDING_FAILURE',
]);
export const ENDED_STATES: ReadonlySet<PrState> = new Set<PrState>(['MERGED', 'FAILED', 'CANCELLED']);

export function isActive(state: PrState): boolean {
  return ACTIVE_STATES.has(state);
}

export const QUEUE_STATES = ['running', 'paused', 'draining', 'switching_modes'] as const;
export type QueueState = (typeof QUEUE_STATES)[number];
/** States a client may set with updateQueue; `switching_modes` is entered by the queue itself. */
export const SETTABLE_QUEUE_STATES = ['running', 'paused', 'draining'] as const;
export type SettableQueueState = (typeof SETTABLE_QUEUE_STATES)[number];
