const SECOND = 1000;
const MINUTE = 60 * SECOND;
const HOUR = 60 * MINUTE;

/**
 * The waits after each failed attempt of a delivery: exponential from 5 seconds, capped at 8 hours,
 * 31.7 hours in all (at least 24 h of retries). After the last one the delivery is `failed`; it can
 * be sent again with `redeliver`.
 */
export const RETRY_SCHEDULE_MS: readonly number[] = [
  5 * SECOND,
  30 * SECOND,
  2 * MINUTE,
  10 * MINUTE,
  30 * MINUTE,
  1 * HOUR,
  2 * HOUR,
  4 * HOUR,
  8 * HOUR,
  8 * HOUR,
  8 * HOUR,
];

/** A subscription whose every attempt has failed for this long is disabled. */
export const DISABLE_AFTER_MS = 3 * 24 * HOUR;
