import { afterEach, beforeEach, describe, expect, it } from '@jest/globals';
import type { MergeEstimate } from '../../src/domain/eta.js';
import type { QueueDoc } from '../../src/domain/queue.js';
import { renderQueueMetrics } from '../../src/metrics/queue-metrics.js';
import { EtaCoverage } from '../../src/service/queue/eta-coverage.js';
import { MetricsService } from '../../src/service/metrics-service.js';
import { openSqliteStore } from '../../src/store/open.js';
import type { Store } from '../../src/store/store.js';
import { parseSamples, valueOf } from './exposition.js';
import { at, entry, queueDoc, run, storeQueue } from './fixtures.js';

/** The health metrics the shipped alert rules watch (docs/metrics.md), from a stored queue with an hour of history. */

const NOW = new Date('2026-11-22T12:00:00.000Z');
const m = (minutes: number) => at(NOW, minutes);
const ACME = 'org-acme';
const widgets = { host: 'github.com', owner: 'acme', name: 'widgets' };
const main = { repo: 'acme/widgets', branch: 'main', queue_type: 'main' };
const bisection = { ...main, queue_type: 'bisection' };
const Q = 'q-widgets-main';

let store: Store;
beforeEach(async () => {
  store = await openSqliteStore(':memory:');
});
afterEach(async () => {
  await store.close();
});

async function render(coverage?: EtaCoverage) {
  return parseSamples(await renderQueueMetrics(new MetricsService(store), ACME, {}, NOW, coverage ? { etaCoverage: coverage } : {}));
}

function ready(id: string, readyAt: string) {
  return { ...entry(id, Q, readyAt, [['PENDING', readyAt]]), readyAt };
}

/** Two PRs waiting (ready 50 and 10 minutes ago), one merged 20 minutes ago, runs of every kind of trouble. */
async function storeTroubledQueue(doc: QueueDoc = queueDoc(Q, ACME, widgets, 'main')) {
  const silent = run('r-silent', Q, 'main', 'pending', m(-15), null);
  const young = run('r-young', Q, 'main', 'pending', m(-5), null);
  const reporting = { ...run('r-reporting', Q, 'main', 'pending', m(-30), null), statusChecks: [{ context: 'ci', state: 'pending' as const, url: null }] };
  const bisecting = run('r-bisect-silent', Q, 'bisection', 'creating', m(-12), null);
  const rerun = { ...run('r-rerun', Q, 'main', 'passed', m(-10), m(-2)), attempt: 1 };
  const timedOut = run('r-timed-out', Q, 'main', 'timed_out', m(-70), m(-25));
  const old = run('r-old', Q, 'main', 'passed', m(-90), m(-70));
  await storeQueue(
    store,
    doc,
    { entries: [ready('e-old', m(-50)), ready('e-new', m(-10))], runs: [silent, young, reporting, bisecting] },
    { entries: [entry('a-merged', Q, m(-60), [['MERGED', m(-20)]])], runs: [rerun, timedOut, old] },
  );
}

describe('health metrics', () => {
  it('counts the runs started in the hour, by kind, and CI runs per merged PR', async () => {
    await storeTroubledQueue();
    const samples = await render();
    // Started within the hour: silent, young, reporting and the rerun (main); the bisection run.
    expect(valueOf(samples, 'mq_ci_runs_1h_total', main)).toBe(4);
    expect(valueOf(samples, 'mq_ci_runs_1h_total', bisection)).toBe(1);
    expect(valueOf(samples, 'mq_ci_runs_per_merged_pr_1h', main)).toBe(5);
  });

  it('counts flake reruns, runs that timed out without a CI result, and runs whose CI has said nothing for 10 minutes', async () => {
    await storeTroubledQueue();
    const samples = await render();
    expect(valueOf(samples, 'mq_flake_reruns_1h_total', main)).toBe(1);
    expect(valueOf(samples, 'mq_test_runs_timed_out_1h_total', main)).toBe(1);
    // 15 minutes without a status: silent. 5 minutes: not yet. 30 minutes with a pending check: CI is running.
    expect(valueOf(samples, 'mq_test_runs_silent_current', main)).toBe(1);
    expect(valueOf(samples, 'mq_test_runs_silent_current', bisection)).toBe(1);
  });

  it('says how long ready PRs have waited without a merge: since the last merge when the oldest waited longer', async () => {
    await storeTroubledQueue();
    expect(valueOf(await render(), 'mq_merge_stalled_seconds', main)).toBe(20 * 60);
  });

  it('counts from the oldest ready PR when no merge came after it became ready', async () => {
    await storeQueue(store, queueDoc(Q, ACME, widgets, 'main'), { entries: [ready('e-1', m(-45)), ready('e-2', m(-5))] }, { entries: [entry('a-merged', Q, m(-80), [['MERGED', m(-50)]])] });
    expect(valueOf(await render(), 'mq_merge_stalled_seconds', main)).toBe(45 * 60);
  });

  it('is not stalled when nothing waits or the queue is paused; no merge in the hour gives no ratio (NaN)', async () => {
    await storeTroubledQueue({ ...queueDoc(Q, ACME, widgets, 'main'), state: 'paused' });
    expect(valueOf(await render(), 'mq_merge_stalled_seconds', main)).toBe(0);
    await store.close();
    store = await openSqliteStore(':memory:');
    await storeQueue(store, queueDoc(Q, ACME, widgets, 'main'), { entries: [entry('not-ready', Q, m(-30))] });
    const samples = await render();
    expect(valueOf(samples, 'mq_merge_stalled_seconds', main)).toBe(0);
    expect(valueOf(samples, 'mq_ci_runs_per_merged_pr_1h', main)).toBeNaN();
  });

  it('is not stalled while a freeze holds the merges; mq_merge_held says which hold', async () => {
    const freeze = { startedAt: m(-40), endsAt: null, reason: 'release', by: 'ops', allowPullRequests: [] };
    await storeTroubledQueue({ ...queueDoc(Q, ACME, widgets, 'main'), freeze });
    const samples = await render();
    expect(valueOf(samples, 'mq_merge_stalled_seconds', main)).toBe(0);
    expect(valueOf(samples, 'mq_merge_held', { ...main, hold: 'freeze' })).toBe(1);
    expect(valueOf(samples, 'mq_merge_held', { ...main, hold: 'window' })).toBe(0);
  });

  it("counts the merges of the hour that fell inside the first range the PR was given, from the process's tracker", async () => {
    await storeTroubledQueue();
    const ranges = new Map<string, [number, number]>([
      ['e-in', [-40, -20]],
      ['e-out', [-40, -35]],
    ]);
    const estimates = async (doc: QueueDoc) =>
      new Map<string, MergeEstimate>(
        doc.entries.flatMap((e) => {
          const r = ranges.get(e.id);
          return r ? [[e.id, { estimatedMergeAt: m(r[0]), estimatedMergeRange: { earliest: m(r[0]), latest: m(r[1]), confidence: 0.8 }, reason: null }] as const] : [];
        }),
      );
    const coverage = new EtaCoverage(estimates);
    const doc = queueDoc(Q, ACME, widgets, 'main');
    await coverage.observe({ ...doc, entries: [ready('e-in', m(-50)), ready('e-out', m(-50))] });
    // A later, different range does not replace the first one.
    ranges.set('e-out', [-40, 0]);
    await coverage.observe({ ...doc, entries: [ready('e-in', m(-50)), ready('e-out', m(-50))] });
    await coverage.observe({ ...doc, entries: [entry('e-in', Q, m(-50), [['MERGED', m(-30)]]), entry('e-out', Q, m(-50), [['MERGED', m(-10)]])] });
    expect(coverage.lastHour(Q, NOW)).toEqual({ checked: 2, held: 1 });
    const samples = await render(coverage);
    expect(valueOf(samples, 'mq_eta_range_checked_1h_total', main)).toBe(2);
    expect(valueOf(samples, 'mq_eta_range_held_1h_total', main)).toBe(1);
    // Without the tracker (a process that saw no range given) the counts are zero, not missing.
    expect(valueOf(await render(), 'mq_eta_range_checked_1h_total', main)).toBe(0);
    // An hour later the merges have left the window.
    expect(coverage.lastHour(Q, new Date(NOW.getTime() + 3_600_000))).toEqual({ checked: 0, held: 0 });
  });
});
