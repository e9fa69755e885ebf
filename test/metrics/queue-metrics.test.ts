import { afterEach, beforeEach, describe, expect, it } from '@jest/globals';
import { metricsRenderer, renderQueueMetrics } from '../../src/metrics/queue-metrics.js';
import { MetricsService } from '../../src/service/metrics-service.js';
import { openSqliteStore } from '../../src/store/open.js';
import type { Store } from '../../src/store/store.js';
import { familiesWithHelp, familyTypes, parseSamples, valueOf, type Sample } from './exposition.js';
import { at, entry, queueDoc, run, storeQueue } from './fixtures.js';

const NOW = new Date('2026-11-22T12:00:00.000Z');
const m = (minutes: number) => at(NOW, minutes);
const ACME = 'org-acme';
const widgets = { host: 'github.com', owner: 'acme', name: 'widgets' };
const main = { repo: 'acme/widgets', branch: 'main', queue_type: 'main' };
const bisection = { ...main, queue_type: 'bisection' };

const ALL_METRICS = {
  mq_depth_current: 'gauge',
  mq_awaiting_mergeability: 'gauge',
  mq_testing_slots_active: 'gauge',
  mq_pr_conclusions_1h_total: 'untyped',
  mq_pr_restarts_1h_total: 'untyped',
  mq_pr_restart_loop_holds_1h_total: 'untyped',
  mq_stacks_landed_1h_total: 'untyped',
  mq_stack_members_landed_1h_total: 'untyped',
  mq_stack_ci_runs_1h_total: 'untyped',
  mq_pr_verdicts_1h_total: 'untyped',
  mq_webhook_failing_seconds: 'gauge',
  mq_pr_wait_duration_1h_seconds: 'histogram',
  mq_pr_test_duration_1h_seconds: 'histogram',
  mq_pr_time_in_queue_1h_seconds: 'histogram',
  mq_flaky_tests_current: 'gauge',
  mq_broken_tests_current: 'gauge',
  mq_quarantined_tests_current: 'gauge',
  mq_ci_runs_1h_total: 'untyped',
  mq_ci_runs_per_merged_pr_1h: 'gauge',
  mq_flake_reruns_1h_total: 'untyped',
  mq_test_runs_timed_out_1h_total: 'untyped',
  mq_test_runs_silent_current: 'gauge',
  mq_merge_held: 'gauge',
  mq_queue_storm: 'gauge',
  mq_merge_stalled_seconds: 'gauge',
  mq_eta_range_checked_1h_total: 'untyped',
  mq_eta_range_held_1h_total: 'untyped',
};

let store: Store;
beforeEach(async () => {
  store = await openSqliteStore(':memory:');
});
afterEach(async () => {
  await store.close();
});

/**
 * One queue with an hour of history, partly still in the queue document and partly archived:
 * 3 merged and 1 failed within the hour, 1 merged before it, 2 restarts within the hour (and one
 * before it), one entry and one run present in both document and archive (a repeated commit).
 */
async function storeBusyQueue(): Promise<void> {
  const q = 'q-widgets-main';
  const notReady = entry('e-not-ready', q, m(-10));
  const restarted = entry('e-restarted', q, m(-80), [
    ['PENDING', m(-78)],
    ['TESTING', m(-75)],
    ['PENDING', m(-70)], // restart before the hour
    ['TESTING', m(-50)],
    ['PENDING', m(-40)], // restart
    ['TESTING', m(-35)],
    ['PENDING', m(-20)], // restart
  ]);
  const testing = entry('e-testing', q, m(-20), [
    ['PENDING', m(-18)],
    ['TESTING', m(-15)], // waited 300 s
  ]);
  const mergedInDoc = entry('e-merged-doc', q, m(-30), [
    ['PENDING', m(-29)],
    ['TESTING', m(-28)], // waited 120 s
    ['TESTS_PASSED', m(-10)],
    ['MERGED', m(-5)], // 1500 s in the queue
  ]);
  const mergedA = entry('a-merged', q, m(-60), [
    ['PENDING', m(-58)],
    ['TESTING', m(-55)], // waited 300 s
    ['MERGED', m(-30)], // 1800 s
  ]);
  const mergedB = entry('a-merged-slow', q, m(-120), [
    ['PENDING', m(-115)],
    ['TESTING', m(-110)], // first test before the hour: no wait observed
    ['MERGED', m(-15)], // 6300 s
  ]);
  const failed = entry('a-failed', q, m(-70), [
    ['PENDING', m(-60)],
    ['TESTING', m(-59)], // waited 660 s
    ['FAILED', m(-50)], // 1200 s
  ]);
  const mergedLongAgo = entry('a-merged-old', q, m(-200), [
    ['PENDING', m(-190)],
    ['TESTING', m(-185)],
    ['PENDING', m(-180)],
    ['TESTING', m(-170)],
    ['MERGED', m(-90)],
  ]);

  const inFlightMain = run('r-pending', q, 'main', 'pending', m(-15), null);
  const inFlightBisection = run('r-creating', q, 'bisection', 'creating', m(-1), null);
  const passedInDoc = run('r-passed-doc', q, 'main', 'passed', m(-30), m(-10)); // 1200 s
  const failedRun = run('r-failed', q, 'main', 'failed', m(-55), m(-40)); // 900 s
  const bisected = run('r-bisect', q, 'bisection', 'passed', m(-60), m(-20)); // 2400 s
  const oldRun = run('r-old', q, 'main', 'passed', m(-100), m(-80));
  const cancelledRun = run('r-cancelled', q, 'main', 'cancelled', m(-50), m(-30));
  const timedOutRun = run('r-timed-out', q, 'main', 'timed_out', m(-50), m(-25));

  await storeQueue(
    store,
    queueDoc(q, ACME, widgets, 'main'),
    { entries: [notReady, restarted, testing, mergedInDoc], runs: [inFlightMain, inFlightBisection, passedInDoc] },
    {
      entries: [mergedA, mergedB, failed, mergedLongAgo, mergedInDoc],
      runs: [failedRun, bisected, oldRun, cancelledRun, timedOutRun, passedInDoc],
    },
  );
}

async function render(orgId = ACME, filter: { repoKey?: string } = {}): Promise<{ text: string; samples: Sample[] }> {
  const text = await renderQueueMetrics(new MetricsService(store), orgId, filter, NOW);
  return { text, samples: parseSamples(text) };
}

function bucketsOf(samples: Sample[], name: string, labels: Record<string, string>): Record<string, number | undefined> {
  const les = ['60', '300', '600', '900', '1800', '3600', '5400', '7200', '+Inf'];
  return Object.fromEntries(les.map((le) => [le, valueOf(samples, `${name}_bucket`, { ...labels, le })]));
}

describe('renderQueueMetrics', () => {
  it('metricsRenderer(service) renders the same text for the HTTP door, the service bound', async () => {
    await storeBusyQueue();
    expect(await metricsRenderer(new MetricsService(store))(ACME, {}, NOW)).toBe((await render()).text);
  });

  it('reports the live gauges of a queue', async () => {
    await storeBusyQueue();
    const { samples } = await render();
    expect(valueOf(samples, 'mq_depth_current', main)).toBe(3);
    expect(valueOf(samples, 'mq_awaiting_mergeability', main)).toBe(1);
    expect(valueOf(samples, 'mq_testing_slots_active', main)).toBe(1);
    expect(valueOf(samples, 'mq_testing_slots_active', bisection)).toBe(1);
  });

  it('counts conclusions and restarts of the last hour only, each entry once', async () => {
    await storeBusyQueue();
    const { samples } = await render();
    expect(valueOf(samples, 'mq_pr_conclusions_1h_total', { ...main, conclusion: 'merged' })).toBe(3);
    expect(valueOf(samples, 'mq_pr_conclusions_1h_total', { ...main, conclusion: 'failed' })).toBe(1);
    expect(valueOf(samples, 'mq_pr_conclusions_1h_total', { ...main, conclusion: 'cancelled' })).toBe(0);
    expect(valueOf(samples, 'mq_pr_restarts_1h_total', main)).toBe(2);
  });

  it('observes wait time from submission to the first test started within the hour', async () => {
    await storeBusyQueue();
    const { samples } = await render();
    const name = 'mq_pr_wait_duration_1h_seconds';
    expect(valueOf(samples, `${name}_count`, main)).toBe(4);
    expect(valueOf(samples, `${name}_sum`, main)).toBe(120 + 300 + 300 + 660);
    expect(bucketsOf(samples, name, main)).toEqual({
      '60': 0, '300': 3, '600': 3, '900': 4, '1800': 4, '3600': 4, '5400': 4, '7200': 4, '+Inf': 4,
    });
  });

  it('observes the time in queue of entries that ended within the hour', async () => {
    await storeBusyQueue();
    const { samples } = await render();
    const name = 'mq_pr_time_in_queue_1h_seconds';
    expect(valueOf(samples, `${name}_count`, main)).toBe(4);
    expect(valueOf(samples, `${name}_sum`, main)).toBe(1500 + 1800 + 6300 + 1200);
    expect(bucketsOf(samples, name, main)).toEqual({
      '60': 0, '300': 0, '600': 0, '900': 0, '1800': 3, '3600': 3, '5400': 3, '7200': 4, '+Inf': 4,
    });
  });

  it('observes test durations of runs that passed or failed within the hour, by run kind', async () => {
    await storeBusyQueue();
    const { samples } = await render();
    const name = 'mq_pr_test_duration_1h_seconds';
    expect(valueOf(samples, `${name}_count`, main)).toBe(2);
    expect(valueOf(samples, `${name}_sum`, main)).toBe(1200 + 900);
    expect(valueOf(samples, `${name}_count`, bisection)).toBe(1);
    expect(valueOf(samples, `${name}_sum`, bisection)).toBe(2400);
    expect(bucketsOf(samples, name, bisection)).toMatchObject({ '1800': 0, '3600': 1, '+Inf': 1 });
  });

  it('counts an entry that ended exactly an hour ago, and not one that ended a millisecond earlier', async () => {
    const q = 'q-edge';
    const hourAgo = NOW.getTime() - 3_600_000;
    const edge = entry('edge', q, m(-90), [['CANCELLED', new Date(hourAgo).toISOString()]]);
    const before = entry('before', q, m(-90), [['CANCELLED', new Date(hourAgo - 1).toISOString()]]);
    await storeQueue(store, queueDoc(q, ACME, widgets, 'main'), {}, { entries: [edge, before] });
    const { samples } = await render();
    expect(valueOf(samples, 'mq_pr_conclusions_1h_total', { ...main, conclusion: 'cancelled' })).toBe(1);
  });

  it('moves with the clock: an hour later the same history counts nothing', async () => {
    await storeBusyQueue();
    const later = new Date(NOW.getTime() + 2 * 3_600_000);
    const samples = parseSamples(await renderQueueMetrics(new MetricsService(store), ACME, {}, later));
    expect(valueOf(samples, 'mq_pr_conclusions_1h_total', { ...main, conclusion: 'merged' })).toBe(0);
    expect(valueOf(samples, 'mq_pr_restarts_1h_total', main)).toBe(0);
    expect(valueOf(samples, 'mq_pr_time_in_queue_1h_seconds_count', main)).toBe(0);
    // The gauges describe the queue as it is, whatever the time.
    expect(valueOf(samples, 'mq_depth_current', main)).toBe(3);
  });

  it('writes every metric with HELP, TYPE and zero-valued series for an idle queue', async () => {
    await storeQueue(store, queueDoc('q-idle', ACME, widgets, 'main'), {});
    const { text, samples } = await render();

    expect(Object.fromEntries(familyTypes(text))).toEqual(ALL_METRICS);
    expect([...familiesWithHelp(text)].sort()).toEqual(Object.keys(ALL_METRICS).sort());
    for (const name of ['mq_depth_current', 'mq_awaiting_mergeability', 'mq_pr_restarts_1h_total']) {
      expect(valueOf(samples, name, main)).toBe(0);
    }
    for (const labels of [main, bisection]) expect(valueOf(samples, 'mq_testing_slots_active', labels)).toBe(0);
    for (const conclusion of ['merged', 'failed', 'cancelled']) {
      expect(valueOf(samples, 'mq_pr_conclusions_1h_total', { ...main, conclusion })).toBe(0);
    }
    for (const name of ['mq_pr_wait_duration_1h_seconds', 'mq_pr_time_in_queue_1h_seconds']) {
      expect(valueOf(samples, `${name}_count`, main)).toBe(0);
      expect(valueOf(samples, `${name}_bucket`, { ...main, le: '+Inf' })).toBe(0);
    }
    for (const labels of [main, bisection]) {
      expect(valueOf(samples, 'mq_pr_test_duration_1h_seconds_count', labels)).toBe(0);
    }
  });

  it('writes HELP and TYPE of every metric even when the organization has no queue', async () => {
    const { text, samples } = await render('org-without-queues');
    expect(Object.fromEntries(familyTypes(text))).toEqual(ALL_METRICS);
    expect(samples).toEqual([]);
  });

  describe('scope', () => {
    beforeEach(async () => {
      await storeBusyQueue();
      const q2 = 'q-widgets-release';
      await storeQueue(store, queueDoc(q2, ACME, widgets, 'release'), { entries: [entry('w-rel', q2, m(-5))] });
      const q3 = 'q-gadgets';
      await storeQueue(store, queueDoc(q3, ACME, { ...widgets, name: 'gadgets' }, 'main'), {
        entries: [entry('g-1', q3, m(-5)), entry('g-2', q3, m(-4))],
      });
      const q4 = 'q-globex';
      await storeQueue(
        store,
        queueDoc(q4, 'org-globex', { host: 'github.com', owner: 'globex', name: 'widgets' }, 'main'),
        { entries: [entry('x-1', q4, m(-5))], runs: [run('x-run', q4, 'main', 'pending', m(-3), null)] },
        { entries: [entry('x-merged', q4, m(-30), [['MERGED', m(-10)]])] },
      );
    });

    const seriesRepos = (samples: Sample[]) => [...new Set(samples.map((s) => `${s.labels.repo}@${s.labels.branch}`))].sort();

    it('covers every repository of the organization and nothing of another', async () => {
      const { samples } = await render();
      expect(seriesRepos(samples)).toEqual(['acme/gadgets@main', 'acme/widgets@main', 'acme/widgets@release']);
      expect(valueOf(samples, 'mq_depth_current', { repo: 'acme/gadgets', branch: 'main', queue_type: 'main' })).toBe(2);
      expect(valueOf(samples, 'mq_depth_current', { ...main, branch: 'release' })).toBe(1);
      // The other organization's archived merge is not counted here.
      expect(valueOf(samples, 'mq_pr_conclusions_1h_total', { ...main, conclusion: 'merged' })).toBe(3);
    });

    it('narrows to one repository, all its branches', async () => {
      const { samples } = await render(ACME, { repoKey: 'github.com/acme/widgets' });
      expect(seriesRepos(samples)).toEqual(['acme/widgets@main', 'acme/widgets@release']);
    });

    it("shows the other organization only its own queues", async () => {
      const { samples } = await render('org-globex');
      expect(seriesRepos(samples)).toEqual(['globex/widgets@main']);
      const globex = { repo: 'globex/widgets', branch: 'main', queue_type: 'main' };
      expect(valueOf(samples, 'mq_depth_current', globex)).toBe(1);
      expect(valueOf(samples, 'mq_pr_conclusions_1h_total', { ...globex, conclusion: 'merged' })).toBe(1);
      expect(valueOf(samples, 'mq_testing_slots_active', globex)).toBe(1);
    });

    it("gives nothing for another organization's repository", async () => {
      const { samples } = await render(ACME, { repoKey: 'github.com/globex/widgets' });
      expect(samples).toEqual([]);
    });
  });

  it('adds up queues whose labels coincide (same owner/name and branch on two hosts) into one series', async () => {
    const onGhe = { ...widgets, host: 'ghe.acme.example' };
    await storeQueue(store, queueDoc('q-gh', ACME, widgets, 'main'), {
      entries: [entry('gh-1', 'q-gh', m(-5)), entry('gh-2', 'q-gh', m(-30), [['CANCELLED', m(-20)]])],
    });
    await storeQueue(store, queueDoc('q-ghe', ACME, onGhe, 'main'), {
      entries: [entry('ghe-1', 'q-ghe', m(-5)), entry('ghe-2', 'q-ghe', m(-50), [['CANCELLED', m(-10)]])],
    });
    const { samples } = await render();
    expect(valueOf(samples, 'mq_depth_current', main)).toBe(2);
    expect(valueOf(samples, 'mq_pr_conclusions_1h_total', { ...main, conclusion: 'cancelled' })).toBe(2);
    expect(valueOf(samples, 'mq_pr_time_in_queue_1h_seconds_count', main)).toBe(2);
    expect(valueOf(samples, 'mq_pr_time_in_queue_1h_seconds_sum', main)).toBe(600 + 2400);
  });

  it('escapes label values', async () => {
    const branch = 'release/"v2"\\beta';
    const q = 'q-odd-branch';
    await storeQueue(store, queueDoc(q, ACME, widgets, branch), { entries: [entry('odd', q, m(-5))] });
    const { text, samples } = await render();
    expect(text).toContain('branch="release/\\"v2\\"\\\\beta"');
    expect(valueOf(samples, 'mq_depth_current', { ...main, branch })).toBe(1);
  });
});
