/** A unique key is taken (organization slug or owner, queue for a branch). */
export class ConflictError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ConflictError';
  }
}
