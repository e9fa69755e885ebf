import { percentile, pollHealth } from './abuse-attacks.js';
import type { AbuseFromServer, AbuseToServer } from './abuse-server.js';

/**
 * bench:abuse's worst flaky-test upload: 20,000 tests that each fail and pass on one commit, so that
 * one upload makes all of them flaky (and quarantines them). Prints the upload's time, /healthz p99
 * and the server's longest event-loop stall meanwhile, against the targets; exit code 1 when over.
 */

export type Ask = <T extends AbuseFromServer['type']>(message: AbuseToServer | null, answer: T) => Promise<Extract<AbuseFromServer, { type: T }>>;

const NEWLY_FLAKY = 20_000;
const TARGETS = { healthP99Ms: 50, loopStallMs: 100 };

export function newlyFlakyJunit(tests: number): string {
  const parts = ['<?xml version="1.0" encoding="UTF-8"?><testsuites><testsuite name="checkout">'];
  for (let i = 0; i < tests; i++) {
    const identity = `classname="checkout.Cart" name="case ${i} adds an item" file="src/checkout/cart-${i % 100}.test.ts"`;
    parts.push(`<testcase ${identity} time="0.01"><failure message="timeout">timed out after 5000 ms</failure></testcase><testcase ${identity} time="0.01"/>`);
  }
  parts.push('</testsuite></testsuites>');
  return parts.join('');
}

export async function runFlakyUploadCase(port: number, token: string, ask: Ask): Promise<void> {
  const body = JSON.stringify({
    repo: { host: 'github.com', owner: 'bench', name: 'flaky' },
    commitSha: 'f'.repeat(40),
    branch: 'feature',
    uploadId: `bench-abuse-flaky-${process.pid}`,
    junitXml: newlyFlakyJunit(NEWLY_FLAKY),
  });
  await ask({ type: 'start', rss: false }, 'started');
  const started = performance.now();
  const upload = fetch(`http://127.0.0.1:${port}/v1/flaky-tests/upload`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-api-token': token },
    body,
  }).then(async (res) => ({ status: res.status, answer: (await res.json()) as { newlyFlaky?: string[] }, ms: performance.now() - started }));
  const latencies = await pollHealth(port, 20, upload);
  const result = await upload;
  const report = await ask({ type: 'report' }, 'report');

  const figures = { healthP99Ms: percentile(latencies, 99), loopStallMs: report.maxLoopDelayMs };
  const verdict = (name: keyof typeof TARGETS) => (figures[name] < TARGETS[name] ? 'ok' : 'OVER TARGET');
  console.log(`  flaky upload of ${NEWLY_FLAKY} newly flaky tests (${(body.length / 2 ** 20).toFixed(1)} MiB): status ${result.status}, ${result.answer.newlyFlaky?.length ?? 0} newly flaky, ${(result.ms / 1000).toFixed(1)} s`);
  console.log(`    /healthz p99 meanwhile  ${figures.healthP99Ms.toFixed(1)} ms over ${latencies.length} requests (max ${Math.max(...latencies).toFixed(1)})   target < ${TARGETS.healthP99Ms}   ${verdict('healthP99Ms')}`);
  console.log(`    longest event-loop stall ${figures.loopStallMs.toFixed(1)} ms   target < ${TARGETS.loopStallMs}   ${verdict('loopStallMs')}`);
  if (result.status !== 200 || verdict('healthP99Ms') !== 'ok' || verdict('loopStallMs') !== 'ok') process.exitCode = 1;
}
