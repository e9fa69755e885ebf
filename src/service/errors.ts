/** A field problem, as listed in a problem+json `errors` array. */
export interface FieldProblem {
  path: string;
  message: string;
}

/**
 * An error every door (HTTP, GitHub App, CLI) reports the same way; HTTP renders it as problem+json.
 * A 4xx is an answer, not a fault: it carries no stack trace, whose capture was a tenth of the cost
 * of refusing a request in bench:abuse's flood.
 */
export class ServiceError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    readonly title: string,
    readonly detail?: string,
    readonly errors?: FieldProblem[],
  ) {
    const stackTraceLimit = Error.stackTraceLimit;
    if (status < 500) Error.stackTraceLimit = 0;
    super(detail ?? title);
    Error.stackTraceLimit = stackTraceLimit;
    this.name = 'ServiceError';
  }
}

export const notFound = {
  /** `repo`: the repository as host/owner/name (its key, lower-cased). */
  queue: (repo: string, branch: string) =>
    new ServiceError(
      404,
      'queue_not_found',
      'Queue not found',
      `no queue for branch ${branch} of ${repo}; create one with the createQueue operation (POST /v1/createQueue)`,
    ),
  pullRequest: (prNumber: number) =>
    new ServiceError(404, 'pull_request_not_found', 'Pull request not found', `pull request #${prNumber} was never submitted to this queue`),
};

/** `field`: the request field naming what the token may not touch (`repo`, `org_url_slug`). */
export function forbidden(detail: string, field = 'repo'): ServiceError {
  return new ServiceError(403, 'forbidden', 'Forbidden', detail, [{ path: field, message: 'is not owned by the organization of this token' }]);
}

/** A 400 naming one field, for what a schema cannot check (it needs the queue or the git host). */
export function invalidRequest(path: string, message: string): ServiceError {
  return new ServiceError(400, 'invalid_request', 'Invalid request', `${path} ${message}`, [{ path, message }]);
}

export function invalidState(detail: string): ServiceError {
  return new ServiceError(409, 'invalid_state', 'Invalid state', detail);
}
