
/** Whether the service can do its work: for `/readyz`. */
export class Readiness {
  constructor(private readonly store: { ping(): Promise<void> }) {}

  /** Resolves when the store answers; rejects with its error otherwise. */
  check(): Promise<void> {
    return this.store.ping();
  }
}
