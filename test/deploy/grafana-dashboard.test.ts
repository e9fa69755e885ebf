import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { stringify } from 'yaml';
import { renderQueueMetrics } from '../../src/metrics/queue-metrics.js';
import { ReconcileDurations } from '../../src/metrics/reconcile-durations.js';
import { MetricsService } from '../../src/service/metrics-service.js';
import { openSqliteStore } from '../../src/store/open.js';
import type { Store } from '../../src/store/store.js';
import { familyTypes } from '../metrics/exposition.js';
import { queueDoc, storeQueue } from '../metrics/fixtures.js';

/** deploy/grafana/mergeq.json: its queries parse (promtool) and read metrics the service writes. */
const DASHBOARD = join(dirname(fileURLToPath(import.meta.url)), '..', '..', 'deploy', 'grafana', 'mergeq.json');
/** Written by the GitHub adapter's write budget (another part of the service), not by the metrics operation. */
const GITHUB_METRICS = ['mergeq_github_write_budget_remaining', 'mergeq_github_writes_total'];

const dashboard = JSON.parse(readFileSync(DASHBOARD, 'utf8')) as { panels: { title: string; targets: { expr: string }[] }[] };
const queries = dashboard.panels.flatMap((p) => p.targets.map((t) => ({ panel: p.title, expr: t.expr.replaceAll('$repo', '.*').replaceAll('$branch', '.*') })));

describe('deploy/grafana/mergeq.json', () => {
  let store: Store;
  beforeAll(async () => {
    store = await openSqliteStore(':memory:');
  });
  afterAll(async () => {
    await store.close();
  });

  it('has queries that promtool parses', () => {
    const dir = mkdtempSync(join(tmpdir(), 'mergeq-dashboard-'));
    try {
      const rules = { groups: [{ name: 'dashboard', rules: queries.map((q, i) => ({ record: `dashboard:query_${i}`, expr: q.expr })) }] };
      writeFileSync(join(dir, 'queries.yml'), stringify(rules));
      const result = spawnSync('promtool', ['check', 'rules', join(dir, 'queries.yml')], { encoding: 'utf8' });
      if (result.error) throw new Error(`promtool could not be run (${result.error.message})`);
      expect(`${result.stdout}${result.stderr}`).toContain(`SUCCESS: ${queries.length} rules found`);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('reads only metrics that the service writes', async () => {
    await storeQueue(store, queueDoc('q', 'org-acme', { host: 'github.com', owner: 'acme', name: 'widgets' }, 'main'), {});
    const text = await renderQueueMetrics(new MetricsService(store), 'org-acme', {}, new Date(), { reconcileDurations: new ReconcileDurations() });
    const written = [...familyTypes(text).keys(), ...GITHUB_METRICS];
    const read = [...new Set(queries.flatMap((q) => q.expr.match(/\b(mq|mergeq)_[a-z0-9_]+/g) ?? []))];
    const unknown = read.filter((name) => !written.some((family) => name === family || name.replace(/_(bucket|sum|count)$/, '') === family));
    expect(unknown).toEqual([]);
    expect(read.length).toBeGreaterThan(10);
  });
});
