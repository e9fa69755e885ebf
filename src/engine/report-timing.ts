/**
 * When `mergeq serve` says things on PRs (github.md, "What each write buys"). The engine's own
 * defaults say everything at once (tests that look at each state).
 */

/**
 * A PR's status and comment say a state once it has held this long: GitHub allows about one write a
 * second per installation, and a PR that is queued, tested and merged within seconds needs one word.
 */
export const REPORT_DEBOUNCE_MS = 2_000;

/**
 * A PR that merges within a minute of joining the queue hears the 👍 of its `/merge` and its merge:
 * no queued status, and so no final one. One still in the queue then is told where it stands.
 */
export const QUEUED_STATUS_AFTER_MS = 60_000;
