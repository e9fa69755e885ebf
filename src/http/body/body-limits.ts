const MiB = 1024 * 1024;

/** Every /v1 operation's body is at most this, unless BODY_LIMITS says otherwise. */
export const DEFAULT_BODY_LIMIT = 1 * MiB;

/**
 * The operations that take large bodies, by path below /v1. The seed's 20 MiB is a maximum, not a
 * minimum: only a list of hundreds of thousands of target names, or a large JUnit report, needs it.
 */
export const BODY_LIMITS: Readonly<Record<string, number>> = {
  '/setImpactedTargets': 20 * MiB,
  '/flaky-tests/upload': 20 * MiB,
};

export function bodyLimitOf(operationPath: string): number {
  return BODY_LIMITS[operationPath] ?? DEFAULT_BODY_LIMIT;
}

/** GitHub caps webhook payloads at 25 MB; a bigger delivery is not from GitHub. */
export const WEBHOOK_BODY_LIMIT = 25 * MiB;

/** A body above this counts as large: a token may send only a few of them at a time. */
export const LARGE_BODY_BYTES = 1 * MiB;
