import type { Request, Response } from 'express';

/** How often the stream looks for changed queues: the page shows a change within 2 s. */
export const POLL_MS = 500;
const KEEPALIVE_MS = 20_000;

/**
 * A server-sent event stream: `event: queues` with the ids of the caller's queues that changed
 * (every write moves a queue's version), sent when they change. Reading versions from the store
 * rather than listening to the engine keeps it right across replicas sharing one store.
 */
export function liveEvents(req: Request, res: Response, versions: () => Promise<Map<string, number>>): void {
  res.status(200).set({ 'Content-Type': 'text/event-stream', 'Cache-Control': 'no-store', Connection: 'keep-alive', 'X-Accel-Buffering': 'no' });
  res.flushHeaders();
  res.write('retry: 1000\n\n');
  let last = new Map<string, number>();
  let first = true;
  let busy = false;
  let closed = false;
  const check = async () => {
    if (busy || closed) return;
    busy = true;
    try {
      const now = await versions();
      const changed = [...now].filter(([id, v]) => last.get(id) !== v).map(([id]) => id);
      const gone = [...last.keys()].filter((id) => !now.has(id));
      last = now;
      if (!first && (changed.length || gone.length)) res.write(`event: queues\ndata: ${JSON.stringify({ changed: [...changed, ...gone] })}\n\n`);
      first = false;
    } catch {
      // The store is briefly unreachable: try again on the next tick; the page keeps what it shows.
    } finally {
      busy = false;
    }
  };
  void check();
  const poll = setInterval(() => void check(), POLL_MS);
  const keepAlive = setInterval(() => res.write(': keep-alive\n\n'), KEEPALIVE_MS);
  req.on('close', () => {
    closed = true;
    clearInterval(poll);
    clearInterval(keepAlive);
  });
}
