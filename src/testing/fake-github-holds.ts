/**
 * Requests the fake GitHub holds before handling them (`hold`): a write in flight while the world
 * moves on. The servers (nock, HTTP) await `gate` before handing a request to the fake.
 */
export class HeldRequests {
  private readonly holds: { method: string; path: RegExp; reached: () => void; released: Promise<void> }[] = [];

  /**
   * The next request `method path` (path below the repository) waits, unhandled, until `release()`.
   * `reached` resolves when it arrives.
   */
  hold(method: string, path: RegExp): { reached: Promise<void>; release(): void } {
    let release!: () => void;
    let reached!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    const arrived = new Promise<void>((resolve) => (reached = resolve));
    this.holds.push({ method, path, reached, released });
    return { reached: arrived, release };
  }

  /** What a server awaits before handling `uri` (a held request's release), or null: at once. */
  gate(method: string, uri: string): Promise<void> | null {
    const path = uri.split('?')[0]!.replace(/^\/repos\/[^/]+\/[^/]+/, '');
    const i = this.holds.findIndex((h) => h.method === method && h.path.test(path));
    if (i < 0) return null;
    const [held] = this.holds.splice(i, 1);
    held!.reached();
    return held!.released;
  }
}
