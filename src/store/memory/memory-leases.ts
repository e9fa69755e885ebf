import type { Lease, LeaseStore } from '../lease-store.js';

/** Leases in memory, for the in-process stores (one process: the lease only ever has one taker). */
export class MemoryLeases implements LeaseStore {
  private readonly leases = new Map<string, Lease>();

  async takeLease(name: string, holder: string, now: number, expiresAt: number): Promise<Lease> {
    const current = this.leases.get(name);
    if (!current || current.holder === holder || current.expiresAt <= now) {
      const taken = { name, holder, expiresAt };
      this.leases.set(name, taken);
      return { ...taken };
    }
    return { ...current };
  }

  async releaseLease(name: string, holder: string): Promise<void> {
    if (this.leases.get(name)?.holder === holder) this.leases.delete(name);
  }
}
