import type { Store } from '../store/store.js';

/** Whether the service can do its work: for `/readyz`. */
export class Readiness {
  constructor(private readonly store: Pick<Store, 'ping'>) {}

  /** Resolves when the store answers; rejects with its error otherwise. */
  check(): Promise<void> {
    return this.store.ping();
  }
}
