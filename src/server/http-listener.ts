import { createServer, type RequestListener, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface HttpListener {
  /** The port actually bound (differs from the requested one when that was 0). */
  port: number;
  host: string;
  /**
   * Stops accepting connections, lets requests in flight finish, and resolves once every connection
   * is closed. Connections still busy after `graceMs` are cut. Calling it again returns the same promise.
   */
  close(): Promise<void>;
}

export class ListenError extends Error {
  constructor(host: string, port: number, cause: NodeJS.ErrnoException) {
    const why = cause.code === 'EADDRINUSE' ? 'the address is already in use' : (cause.code ?? cause.message);
    super(`cannot listen on ${host}:${port}: ${why} (set MERGEQ_PORT or MERGEQ_HOST)`);
    this.name = 'ListenError';
  }
}

export interface ListenOptions {
  port: number;
  host: string;
  graceMs: number;
  /** A client must send its request headers within this (Node answers 408 and closes). */
  headersTimeoutMs?: number;
  /** The app answers a slow body with 408 at this time; Node cuts the connection a little later. */
  bodyTimeoutMs?: number;
}

export const DEFAULT_HEADERS_TIMEOUT_MS = 10_000;

export async function listen(handler: RequestListener, opts: ListenOptions): Promise<HttpListener> {
  const headersTimeout = opts.headersTimeoutMs ?? DEFAULT_HEADERS_TIMEOUT_MS;
  const server = createServer(
    {
      headersTimeout,
      requestTimeout: Math.max(headersTimeout, (opts.bodyTimeoutMs ?? 60_000) + 5_000),
      // Node checks those timeouts this often (30 s by default, which would triple a 10 s bound).
      connectionsCheckingInterval: 1_000,
    },
    handler,
  );
  let closing: Promise<void> | undefined;
  // Once closing, every response not yet sent asks its client to close the connection, so keep-alive
  // sockets end with the request they carry instead of idling until the keep-alive timeout.
  const inFlight = new Set<ServerResponse>();
  const closeAfterResponse = (res: ServerResponse) => {
    if (!res.headersSent) res.setHeader('Connection', 'close');
  };
  server.prependListener('request', (_req, res) => {
    if (closing) return closeAfterResponse(res);
    inFlight.add(res);
    res.once('close', () => inFlight.delete(res));
  });
  await new Promise<void>((resolve, reject) => {
    const fail = (err: NodeJS.ErrnoException) => reject(new ListenError(opts.host, opts.port, err));
    server.once('error', fail);
    server.listen(opts.port, opts.host, () => {
      server.off('error', fail);
      resolve();
    });
  });
  const { port } = server.address() as AddressInfo;
  return {
    port,
    host: opts.host,
    close() {
      closing ??= new Promise<void>((resolve) => {
        const force = setTimeout(() => server.closeAllConnections(), opts.graceMs);
        force.unref();
        server.close(() => {
          clearTimeout(force);
          resolve();
        });
        server.closeIdleConnections();
        for (const res of inFlight) closeAfterResponse(res);
      });
      return closing;
    },
  };
}
