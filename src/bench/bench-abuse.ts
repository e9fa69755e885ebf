import { fork } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { MiB, percentile, pollHealth, streamBody, type AttackResult } from './abuse-attacks.js';
import type { AbuseFromServer, AbuseToServer } from './abuse-server.js';
import { refusalFlood } from './abuse-refusal-flood.js';
import { runFlakyUploadCase } from './abuse-flaky-upload.js';

/**
 * npm run bench:abuse — hostile traffic against the real service on 127.0.0.1, all at once: one
 * 300 MiB unsigned webhook, five 20 MB deeply nested JSON bodies, thirty 19 MiB bodies that stall.
 * Prints the server's peak RSS growth, its longest event-loop stall, /healthz p99 meanwhile and its
 * longest log line, against the targets. Stops by itself (the stalled bodies end at the body timeout).
 */

const TARGETS = { rssGrowthMb: 100, loopStallMs: 100, healthP99Ms: 50, logLineBytes: 4096 };

const child = fork(fileURLToPath(new URL('./abuse-server.js', import.meta.url)), [], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
const ask = <T extends AbuseFromServer['type']>(message: AbuseToServer | null, answer: T) =>
  new Promise<Extract<AbuseFromServer, { type: T }>>((resolve, reject) => {
    const onMessage = (reply: AbuseFromServer) => {
      if (reply.type !== answer) return;
      child.off('message', onMessage);
      resolve(reply as Extract<AbuseFromServer, { type: T }>);
    };
    child.on('message', onMessage);
    child.once('exit', (code) => reject(new Error(`the server exited (code ${code})`)));
    if (message) child.send(message);
  });

const ready = await ask(null, 'ready');
const { port, tokens } = ready;
await ask({ type: 'start' }, 'started');
const started = Date.now();

// The stalled bodies use one token, the nested ones the other: each token's two large-body places
// are taken, by bodies that stall until the body timeout and by bodies refused for their nesting.
const stallingClient = { 'x-api-token': tokens[0], 'content-type': 'application/json' };
const nestingClient = { 'x-api-token': tokens[1], 'content-type': 'application/json' };
const filler = Buffer.alloc(MiB, 'x');
const brackets = Buffer.alloc(MiB, '[');

const stalled = Array.from({ length: 30 }, () =>
  streamBody({
    port,
    path: '/v1/setImpactedTargets',
    headers: stallingClient,
    declared: 19 * MiB,
    total: 19 * MiB,
    chunk: filler,
    prefix: '{"repo":{"host":"github.com","owner":"bench","name":"w"},"targetBranch":"main","pr":{"number":1,"sha":"a"},"impactedTargets":"ALL","pad":"',
    stallAfter: 18 * MiB,
  }),
);
const webhook = streamBody({
  port,
  path: '/api/github/webhooks',
  headers: { 'content-type': 'application/json', 'x-github-event': 'push', 'x-github-delivery': 'bench-1', 'x-hub-signature-256': 'sha256=00' },
  declared: null,
  total: 300 * MiB,
  chunk: filler,
});
const nested = Array.from({ length: 5 }, () =>
  streamBody({ port, path: '/v1/setImpactedTargets', headers: nestingClient, declared: 20_000_000, total: 20_000_000, chunk: brackets }),
);

const attacks = Promise.all([webhook, Promise.all(nested), Promise.all(stalled)]);
const health = pollHealth(port, 20, attacks);
const [webhookResult, nestedResults, stalledResults] = await attacks;
const latencies = await health;
const report = await ask({ type: 'report' }, 'report');

const tally = (results: AttackResult[]) => {
  const counts = new Map<string, number>();
  for (const r of results) counts.set(r.outcome, (counts.get(r.outcome) ?? 0) + 1);
  return [...counts].map(([outcome, n]) => `${n}× ${outcome}`).join(', ');
};
const figures = {
  rssGrowthMb: report.rssPeakMb - report.rssBeforeMb,
  loopStallMs: report.maxLoopDelayMs,
  healthP99Ms: percentile(latencies, 99),
  logLineBytes: report.longestLogLine,
};
const verdict = (name: keyof typeof TARGETS) => (figures[name] < TARGETS[name] ? 'ok' : 'OVER TARGET');

console.log(`bench:abuse — ${((Date.now() - started) / 1000).toFixed(1)} s against 127.0.0.1:${port}`);
console.log(`  300 MiB unsigned webhook (streamed):      ${webhookResult.outcome}`);
console.log(`  5 × 20 MB nested JSON (setImpactedTargets): ${tally(nestedResults)}`);
console.log(`  30 × 19 MiB bodies stalled at 18 MiB:     ${tally(stalledResults)}`);
console.log(`  peak RSS growth        ${figures.rssGrowthMb.toFixed(1)} MiB (from ${report.rssBeforeMb.toFixed(1)} MiB)   target < ${TARGETS.rssGrowthMb}   ${verdict('rssGrowthMb')}`);
console.log(`  longest event-loop stall ${figures.loopStallMs.toFixed(1)} ms   target < ${TARGETS.loopStallMs}   ${verdict('loopStallMs')}`);
console.log(`  /healthz p99           ${figures.healthP99Ms.toFixed(1)} ms over ${latencies.length} requests (max ${Math.max(...latencies).toFixed(1)})   target < ${TARGETS.healthP99Ms}   ${verdict('healthP99Ms')}`);
console.log(`  longest log line       ${figures.logLineBytes} bytes of ${report.logLines} lines   target < ${TARGETS.logLineBytes}   ${verdict('logLineBytes')}`);
const failed = (Object.keys(TARGETS) as (keyof typeof TARGETS)[]).filter((k) => verdict(k) !== 'ok');
const refusalsOk = await refusalFlood({ port, pid: child.pid!, token: tokens[0] }, ask);
process.exitCode = failed.length === 0 && refusalsOk ? 0 : 1;
await runFlakyUploadCase(port, tokens[0], ask);
child.send({ type: 'stop' } satisfies AbuseToServer);
