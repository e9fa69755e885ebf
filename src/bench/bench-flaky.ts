import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Command } from 'commander';
import { positive, positiveInt } from './option-numbers.js';
import { bodyLimitOf } from '../http/body/body-limits.js';

const UPLOAD_BODY_LIMIT_BYTES = bodyLimitOf('/flaky-tests/upload');
import { BENCH_REPO } from './ipc.js';
import { junitDocument, uploadBodies } from './junit-upload-body.js';
import { runLoad, type LoadResult } from './load.js';
import { ServerProcess } from './server-process.js';

/**
 * `npm run bench:flaky [-- --duration 10 --connections 2 --tests 10000]`: uploads of JUnit files of
 * 10,000 test cases to POST /v1/flaky-tests/upload (each a new uploadId), against an express baseline
 * that only parses the same body and its XML; then the peak RSS of the service for one upload of
 * (almost) 20 MiB. Each server in its own process; writes bench/results/flaky.json.
 */
const DEFAULT_JSON = fileURLToPath(new URL('../../bench/results/flaky.json', import.meta.url));

const opts = new Command()
  .name('bench-flaky')
  .option('--duration <s>', 'seconds of upload load per server', positive, 10)
  .option('--warmup <s>', 'seconds of discarded load first', positive, 2)
  .option('--connections <n>', 'concurrent uploads', positiveInt, 2)
  .option('--tests <n>', 'test cases per uploaded file', positiveInt, 10_000)
  .option('--json <file>', 'where to write the results', DEFAULT_JSON)
  .parse()
  .opts<{ duration: number; warmup: number; connections: number; tests: number; json: string }>();

const xml = junitDocument({ tests: opts.tests, failEvery: 50, outputBytes: 0 });
const uploads = uploadBodies(BENCH_REPO, xml);
// ~40,000 cases (under the 50,000 limit) with enough output each to fill the body to just under 20 MiB.
const bigTests = 40_000;
const bigXml = junitDocument({ tests: bigTests, failEvery: 50, outputBytes: 0 });
// Measured on the JSON (escaping adds bytes to the XML), keeping 64 KiB of room for the upload id.
const baseJsonBytes = uploadBodies(BENCH_REPO, bigXml).bytes;
const padding = Math.floor((UPLOAD_BODY_LIMIT_BYTES - 64 * 1024 - baseJsonBytes) / bigTests) - '<system-out></system-out>'.length;
const big = uploadBodies(BENCH_REPO, junitDocument({ tests: bigTests, failEvery: 50, outputBytes: Math.max(0, padding) }));

console.log(
  `bench:flaky: uploads of ${opts.tests} test cases (${(uploads.bytes / 2 ** 20).toFixed(2)} MiB JSON), ${opts.connections} connections, ` +
    `${opts.duration} s after ${opts.warmup} s warm-up; then one ${(big.bytes / 2 ** 20).toFixed(2)} MiB upload of ${bigTests} cases`,
);

async function measure(kind: 'baseline' | 'mergeq'): Promise<{ load: LoadResult; rss: Awaited<ReturnType<ServerProcess['stopRss']>> | null; bigStatus: Record<string, number> }> {
  const server = await ServerProcess.start(kind, kind === 'mergeq' ? ['1', '1'] : []);
  try {
    const path = kind === 'mergeq' ? '/v1/flaky-tests/upload' : '/junit-count';
    const headers = { 'content-type': 'application/json', ...(server.fixture ? { 'x-api-token': server.fixture.token } : {}) };
    const spec = { url: server.url, method: 'POST' as const, path, headers, connections: opts.connections, timeoutSec: 120 };
    await runLoad({ ...spec, nextBody: uploads.next, durationSec: opts.warmup });
    const load = await runLoad({ ...spec, nextBody: uploads.next, durationSec: opts.duration });
    await server.startRss();
    const bigRun = await runLoad({ ...spec, connections: 1, nextBody: big.next, amount: 1 });
    const rss = await server.stopRss();
    return { load, rss, bigStatus: bigRun.statusCodes };
  } finally {
    await server.stop();
  }
}

const baseline = await measure('baseline');
const mergeq = await measure('mergeq');
const row = (name: string, r: Awaited<ReturnType<typeof measure>>) =>
  `${name.padEnd(10)} ${r.load.requestsPerSec.toFixed(2).padStart(9)} uploads/s  p50 ${r.load.p50Ms.toFixed(0).padStart(6)} ms  p99 ${r.load.p99Ms.toFixed(0).padStart(6)} ms  ` +
  `ok ${r.load.ok}  non-2xx ${r.load.non2xx}  errors ${r.load.errors}  | 20 MiB upload: status ${JSON.stringify(r.bigStatus)}, ` +
  `peak RSS ${r.rss ? `${(r.rss.kernelPeakMb ?? r.rss.sampledPeakMb).toFixed(0)} MiB (from ${r.rss.beforeMb.toFixed(0)} MiB)` : '-'}`;
console.log(`\n${row('baseline', baseline)}\n${row('mergeq', mergeq)}`);
console.log(
  `mergeq / baseline: throughput ${(mergeq.load.requestsPerSec / baseline.load.requestsPerSec).toFixed(2)}×, p99 ${(mergeq.load.p99Ms / baseline.load.p99Ms).toFixed(2)}×`,
);

const strip = (r: Awaited<ReturnType<typeof measure>>) => ({ ...r, load: { ...r.load, latenciesMs: undefined } });
mkdirSync(dirname(opts.json), { recursive: true });
writeFileSync(opts.json, `${JSON.stringify({ settings: opts, uploadBytes: uploads.bytes, bigUploadBytes: big.bytes, baseline: strip(baseline), mergeq: strip(mergeq) }, null, 2)}\n`);
console.log(`wrote ${opts.json}`);
if (mergeq.load.non2xx + mergeq.load.errors > 0 || !mergeq.bigStatus['200']) process.exitCode = 1;
