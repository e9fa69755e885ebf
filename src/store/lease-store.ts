/** A named lease: who holds it, and until when (epoch milliseconds). */
export interface Lease {
  name: string;
  holder: string;
  expiresAt: number;
}

/**
 * Leases, the store's role for "one at a time across replicas": one holder per name until its time
 * runs out. The engine takes a queue's lease before it acts on that queue (src/engine/queue-lease.ts).
 * Times are the callers' clocks, so replicas sharing a store need clocks that roughly agree.
 */
export interface LeaseStore {
  /**
   * Takes the lease `name` for `holder` until `expiresAt` when nobody holds it, when its holder's
   * time ran out (`expiresAt <= now`), or when `holder` holds it already (a renewal). Answers the
   * lease as it stands afterwards: `holder`'s when taken, another holder's when not. Atomic: of
   * concurrent takers of a free lease, exactly one gets it.
   */
  takeLease(name: string, holder: string, now: number, expiresAt: number): Promise<Lease>;
  /** Gives the lease up when `holder` holds it, so another may take it at once; no-op otherwise. */
  releaseLease(name: string, holder: string): Promise<void>;
}
