import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import type express from 'express';
import { createBaselineApp } from './baseline-app.js';
import type { FromServer, MergeqFixture, ServerKind, ToServer } from './ipc.js';
import { createMergeqBenchApp } from './mergeq-fixture.js';
import { RssProbe } from './rss-probe.js';

/**
 * A server under test, in its own process (forked by bench-api) so that its CPU and memory are not
 * shared with the load generator. argv: `baseline` | `mergeq <queuedPrs> <resubmitPrs>`.
 * Listens on 127.0.0.1 on a free port, reports it, then answers RSS probes until told to stop.
 */
const kind = process.argv[2] as ServerKind;

function send(message: FromServer): void {
  process.send?.(message);
}

async function build(): Promise<{ app: express.Express; fixture: MergeqFixture | null; close: () => Promise<void> }> {
  if (kind === 'baseline') return { app: createBaselineApp(), fixture: null, close: async () => {} };
  if (kind === 'mergeq') return createMergeqBenchApp({ queuedPrs: Number(process.argv[3]), resubmitPrs: Number(process.argv[4]) });
  throw new Error(`unknown server kind ${String(kind)}`);
}

const built = await build();
const server: Server = await new Promise((resolve) => {
  const s = built.app.listen(0, '127.0.0.1', () => resolve(s));
});
const probe = new RssProbe();

let stopping = false;
async function stop(): Promise<void> {
  if (stopping) return;
  stopping = true;
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  await built.close();
  process.exit(0);
}

process.on('message', (message: ToServer) => {
  switch (message.type) {
    case 'rss-start':
      probe.start();
      send({ type: 'rss-started' });
      break;
    case 'rss-stop':
      send(probe.stop());
      break;
    case 'stop':
      void stop();
      break;
  }
});
// The parent went away (crashed or was killed): do not linger, and remove the temp store.
process.on('disconnect', () => void stop());

send({ type: 'ready', port: (server.address() as AddressInfo).port, fixture: built.fixture });
