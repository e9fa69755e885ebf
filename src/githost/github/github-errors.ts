/** Reading octokit's RequestErrors: status, GitHub's messages, expected statuses. */

/** The HTTP status of an octokit RequestError (or of anything carrying a numeric `status`). */
export function httpStatus(error: unknown): number | undefined {
  if (typeof error !== 'object' || error === null || !('status' in error)) return undefined;
  return typeof error.status === 'number' ? error.status : undefined;
}

/** GitHub's own message (RequestError.message may carry the documentation URL too). */
export function gitHubMessage(error: unknown): string {
  if (typeof error === 'object' && error !== null && 'response' in error) {
    const data = (error.response as { data?: unknown } | undefined)?.data;
    if (typeof data === 'object' && data !== null && 'message' in data && typeof data.message === 'string') return data.message;
  }
  return error instanceof Error ? error.message : String(error);
}

/** GitHub's message and those of its `errors` (a 422 "Validation Failed" says what failed there). */
export function gitHubErrorMessages(error: unknown): string[] {
  const data = typeof error === 'object' && error !== null && 'response' in error ? (error.response as { data?: unknown } | undefined)?.data : undefined;
  const errors = typeof data === 'object' && data !== null && 'errors' in data && Array.isArray(data.errors) ? (data.errors as unknown[]) : [];
  const details = errors.flatMap((e) => (typeof e === 'object' && e !== null && 'message' in e && typeof e.message === 'string' ? [e.message] : []));
  return [gitHubMessage(error), ...details];
}

/** `422 Validation Failed: No commits between main and mergeq/main/r1`, for a log line. */
export function describeGitHubError(error: unknown): string {
  const status = httpStatus(error);
  return `${status !== undefined ? `${status} ` : ''}${gitHubErrorMessages(error).join(': ')}`;
}

/** `call()`, or `fallback` when GitHub answers with one of `statuses`. */
export async function orWhen<T>(statuses: number[], fallback: T, call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (error) {
    const status = httpStatus(error);
    if (status !== undefined && statuses.includes(status)) return fallback;
    throw error;
  }
}
