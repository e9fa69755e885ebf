/** How many large bodies each token is sending right now; a slow client cannot hold more than `max`. */
export class LargeBodiesInFlight {
  private readonly counts = new Map<string, number>();

  constructor(readonly max: number) {}

  /** Takes a place for `key`; false when it already has `max` bodies in flight. */
  enter(key: string): boolean {
    const count = this.counts.get(key) ?? 0;
    if (count >= this.max) return false;
    this.counts.set(key, count + 1);
    return true;
  }

  leave(key: string): void {
    const count = (this.counts.get(key) ?? 0) - 1;
    if (count > 0) this.counts.set(key, count);
    else this.counts.delete(key);
  }
}
