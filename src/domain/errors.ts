/** An operation that is not valid in the entry's or queue's current state (HTTP 409 invalid_state). */
export class InvalidStateError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'InvalidStateError';
  }
}
