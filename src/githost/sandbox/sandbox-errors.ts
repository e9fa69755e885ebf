/** The errors the sandbox git host throws: shaped like a real host's answers (a status, transient or not). */

/** What the sandbox throws for an injected outage: looks like a 503 from a real host. */
export class SandboxOutageError extends Error {
  readonly status = 503;
  readonly transient = true;
  constructor(method: string) {
    super(`sandbox git host: injected outage in ${method}`);
    this.name = 'SandboxOutageError';
  }
}

export class SandboxNotFoundError extends Error {
  readonly status = 404;
  constructor(message: string) {
    super(message);
    this.name = 'SandboxNotFoundError';
  }
}

export class SandboxStateError extends Error {
  readonly status = 422;
  constructor(message: string) {
    super(message);
    this.name = 'SandboxStateError';
  }
}
