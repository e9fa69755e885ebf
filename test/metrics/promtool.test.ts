import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { spawnSync } from 'node:child_process';
import { renderQueueMetrics } from '../../src/metrics/queue-metrics.js';
import { ReconcileDurations } from '../../src/metrics/reconcile-durations.js';
import { MetricsService } from '../../src/service/metrics-service.js';
import { openSqliteStore } from '../../src/store/open.js';
import type { Store } from '../../src/store/store.js';
import { at, entry, queueDoc, run, storeQueue } from './fixtures.js';

const NOW = new Date('2026-11-22T12:00:00.000Z');
const m = (minutes: number) => at(NOW, minutes);

/** Runs `promtool check metrics` on the text; fails (never skips) when promtool is not installed. */
function promtoolCheck(text: string): { status: number | null; output: string } {
  const result = spawnSync('promtool', ['check', 'metrics'], { input: text, encoding: 'utf8' });
  if (result.error) {
    throw new Error(
      `promtool could not be run (${result.error.message}). Install it with ` +
        '`apt-get update && apt-get install -y --no-install-recommends prometheus` (Debian package `prometheus`).',
    );
  }
  return { status: result.status, output: `${result.stdout}${result.stderr}`.trim() };
}

describe('metrics output passes promtool check metrics', () => {
  let store: Store;
  beforeAll(async () => {
    store = await openSqliteStore(':memory:');
    const widgets = { host: 'github.com', owner: 'acme', name: 'widgets' };
    const q1 = 'q-busy';
    await storeQueue(
      store,
      queueDoc(q1, 'org-acme', widgets, 'main'),
      {
        entries: [
          entry('e1', q1, m(-10)),
          entry('e2', q1, m(-50), [['PENDING', m(-45)], ['TESTING', m(-40)], ['PENDING', m(-30)], ['TESTING', m(-25)]]),
        ],
        runs: [run('r1', q1, 'main', 'pending', m(-25), null), run('r2', q1, 'bisection', 'creating', m(-1), null)],
      },
      {
        entries: [
          entry('a1', q1, m(-59), [['PENDING', m(-58)], ['TESTING', m(-50)], ['MERGED', m(-20)]]),
          entry('a2', q1, m(-200), [['PENDING', m(-150)], ['TESTING', m(-100)], ['FAILED', m(-30)]]),
        ],
        runs: [run('r3', q1, 'main', 'passed', m(-50), m(-21)), run('r4', q1, 'bisection', 'failed', m(-40), m(-35))],
      },
    );
    const q2 = 'q-odd';
    await storeQueue(store, queueDoc(q2, 'org-acme', { ...widgets, name: 'gadgets' }, 'we"ird\\branch'), {
      entries: [entry('o1', q2, m(-3))],
    });
  });
  afterAll(async () => {
    await store.close();
  });

  it('for a populated store, odd branch names included', async () => {
    const text = await renderQueueMetrics(new MetricsService(store), 'org-acme', {}, NOW);
    expect(text).toContain('mq_pr_conclusions_1h_total{');
    expect(promtoolCheck(text)).toEqual({ status: 0, output: '' });
  });

  it('with the reconcile histogram of a server that has reconciled one of the queues', async () => {
    const durations = new ReconcileDurations();
    for (const seconds of [0.0004, 0.003, 0.003, 0.7, 45]) durations.observe('q-busy', seconds);
    const text = await renderQueueMetrics(new MetricsService(store), 'org-acme', {}, NOW, { reconcileDurations: durations });
    const busy = 'repo="acme/widgets",branch="main",queue_type="main"';
    expect(text).toContain(`mq_reconcile_duration_seconds_bucket{${busy},le="0.001"} 1\n`);
    expect(text).toContain(`mq_reconcile_duration_seconds_bucket{${busy},le="0.005"} 3\n`);
    expect(text).toContain(`mq_reconcile_duration_seconds_bucket{${busy},le="30"} 4\n`);
    expect(text).toContain(`mq_reconcile_duration_seconds_count{${busy}} 5\n`);
    // The queue that never reconciled is written at zero, its odd branch name escaped.
    expect(text).toContain('mq_reconcile_duration_seconds_count{repo="acme/gadgets",branch="we\\"ird\\\\branch",queue_type="main"} 0\n');
    expect(promtoolCheck(text)).toEqual({ status: 0, output: '' });
  });

  it('for an organization without queues', async () => {
    const text = await renderQueueMetrics(new MetricsService(store), 'org-empty', {}, NOW);
    expect(promtoolCheck(text)).toEqual({ status: 0, output: '' });
  });

  it('and promtool does catch a malformed exposition (the check is real)', () => {
    const broken = '# HELP mq_pr_restarts_1h_total x\n# TYPE mq_pr_restarts_1h_total gauge\nmq_pr_restarts_1h_total 1\n';
    expect(promtoolCheck(broken).status).not.toBe(0);
  });
});
