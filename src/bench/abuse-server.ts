import { generateKeyPairSync, randomBytes, randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { loadConfig } from '../config/load-config.js';
import { createLogger } from '../server/logger.js';
import { startServer } from '../server/start-server.js';
import { displayPrefix, generateToken, hashToken } from '../service/access/tokens.js';
import { openStore } from '../store/open.js';
import { RssProbe } from './rss-probe.js';

/**
 * The service under attack, as `mergeq serve` runs it (real config, SQLite file store, the GitHub
 * App's webhook endpoint with a throw-away key), in its own process so that its memory and event
 * loop are measured alone. Reports its port and an API token, then answers probes over IPC.
 */

/** `rss: false`: the phase reports no memory figure, so the server does not sample its RSS every 5 ms. */
export type AbuseToServer = { type: 'start'; rss?: boolean } | { type: 'report' } | { type: 'stop' };
export type AbuseFromServer =
  | { type: 'ready'; port: number; tokens: [string, string] }
  | { type: 'started' }
  | { type: 'report'; rssBeforeMb: number; rssPeakMb: number; maxLoopDelayMs: number; longestLogLine: number; logLines: number };

const send = (message: AbuseFromServer) => process.send?.(message);

const dataDir = mkdtempSync(join(tmpdir(), 'mergeq-bench-abuse-'));
// Two tokens of one organization: an attacker holding two tokens gets two shares of large bodies.
const tokens: [string, string] = [generateToken(), generateToken()];
const seed = await openStore({ dataDir });
const now = new Date().toISOString();
const orgId = randomUUID();
await seed.orgs.createOrg({ id: orgId, slug: 'bench', owners: ['github.com/bench'], createdAt: now });
for (const token of tokens) {
  await seed.orgs.createToken({ id: randomUUID(), orgId, name: 'bench', hash: hashToken(token), prefix: displayPrefix(token), createdAt: now, revokedAt: null, lastUsedAt: null });
}
await seed.close();

let longestLogLine = 0;
let logLines = 0;
const logSink = new Writable({
  write(chunk: Buffer, _encoding, done) {
    for (const line of String(chunk).split('\n')) {
      if (line === '') continue;
      logLines++;
      longestLogLine = Math.max(longestLogLine, Buffer.byteLength(line));
    }
    done();
  },
});

const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048, privateKeyEncoding: { type: 'pkcs1', format: 'pem' }, publicKeyEncoding: { type: 'spki', format: 'pem' } });
const config = loadConfig({
  MERGEQ_PORT: '1',
  MERGEQ_HOST: '127.0.0.1',
  MERGEQ_DATA_DIR: dataDir,
  APP_ID: '1',
  PRIVATE_KEY: privateKey,
  WEBHOOK_SECRET: randomBytes(16).toString('hex'),
  LOG_LEVEL: 'info',
});
const server = await startServer({ ...config, port: 0 }, { logger: createLogger('info', logSink) });

const loopDelay = monitorEventLoopDelay({ resolution: 5 });
const rss = new RssProbe();

let stopping = false;
async function stop(): Promise<void> {
  if (stopping) return;
  stopping = true;
  await server.stop();
  rmSync(dataDir, { recursive: true, force: true });
  process.exit(0);
}

process.on('message', (message: AbuseToServer) => {
  switch (message.type) {
    case 'start':
      if (message.rss !== false) rss.start();
      loopDelay.reset();
      loopDelay.enable();
      send({ type: 'started' });
      break;
    case 'report': {
      loopDelay.disable();
      const r = rss.stop();
      send({
        type: 'report',
        rssBeforeMb: r.beforeMb,
        rssPeakMb: Math.max(r.sampledPeakMb, r.kernelPeakMb ?? 0),
        maxLoopDelayMs: loopDelay.max / 1e6,
        longestLogLine,
        logLines,
      });
      break;
    }
    case 'stop':
      void stop();
      break;
  }
});
process.on('disconnect', () => void stop());

send({ type: 'ready', port: server.port, tokens });
