/**
 * One holder per key at a time, in arrival order: the per-queue lock of this process. The engine's
 * reconciles of one queue run one after another under it, and so do the service's writes to one
 * queue (under their own key), so they do not spend their compare-and-set retries on each other.
 */
export class KeyedLock {
  private readonly tails = new Map<string, Promise<void>>();

  async run<T>(key: string, fn: () => Promise<T>): Promise<T> {
    const previous = this.tails.get(key) ?? Promise.resolve();
    let release!: () => void;
    const mine = new Promise<void>((resolve) => (release = resolve));
    const tail = previous.then(() => mine);
    this.tails.set(key, tail);
    await previous;
    try {
      return await fn();
    } finally {
      release();
      if (this.tails.get(key) === tail) this.tails.delete(key);
    }
  }

  /** Resolves once every holder of the key that is queued now is done. */
  idle(key: string): Promise<void> {
    return this.tails.get(key) ?? Promise.resolve();
  }
}
