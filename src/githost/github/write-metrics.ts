import { Counter, Gauge, Registry } from 'prom-client';
import type { QueueDoc } from '../../domain/queue.js';
import { repoFullName, type RepoRef } from '../../domain/repo.js';
import type { WriteBudget, WriteBudgetEvents } from './write-budget.js';
import type { WriteKind } from './write-class.js';

type Dropped = 'replaced' | 'stale' | 'reserve';

/**
 * The GitHub App's writes (github.md, "Write budget"), counted as the budget sends, refuses and drops
 * them, and rendered per organization for the installations of its queues' repositories:
 * `mergeq_github_writes_total{installation,kind}`, `mergeq_github_write_budget_remaining{installation,window}`,
 * `mergeq_github_write_refusals_total{installation}`, `mergeq_github_writes_dropped_total{installation,kind,reason}`,
 * and per queue `mergeq_queue_fast_forward_refused{repo,branch}` (1 while branch protection refuses
 * the App's fast-forward and PRs merge through the merge API).
 */
export class GitHubWriteMetrics implements WriteBudgetEvents {
  private readonly writes = new Map<string, number>();
  private readonly refusals = new Map<number, number>();
  private readonly drops = new Map<string, number>();
  private budget: WriteBudget | null = null;

  constructor(private readonly installationOf: (repo: RepoRef) => number | undefined) {}

  /** The budget whose remaining writes are rendered (it is built after these counters). */
  watch(budget: WriteBudget): void {
    this.budget = budget;
  }

  sent(installation: number, kind: WriteKind): void {
    bump(this.writes, `${installation}|${kind}`);
  }

  refused(installation: number): void {
    bump(this.refusals, installation);
  }

  dropped(installation: number, kind: WriteKind, why: Dropped): void {
    bump(this.drops, `${installation}|${kind}|${why}`);
  }

  async render(queues: readonly QueueDoc[]): Promise<string> {
    const registry = new Registry();
    const registers = [registry];
    const writes = new Counter({ name: 'mergeq_github_writes_total', help: 'Content-creating GitHub requests the App sent, by kind.', labelNames: ['installation', 'kind'], registers });
    const remaining = new Gauge({ name: 'mergeq_github_write_budget_remaining', help: "Writes the installation may still send in the current minute and hour (GitHub's secondary limits).", labelNames: ['installation', 'window'], registers });
    const refusals = new Counter({ name: 'mergeq_github_write_refusals_total', help: 'Writes GitHub refused for a rate limit anyway (the installation then paused).', labelNames: ['installation'], registers });
    const dropped = new Counter({ name: 'mergeq_github_writes_dropped_total', help: 'Low-priority writes never sent: replaced by a newer one, too old, or held back by the hour reserve.', labelNames: ['installation', 'kind', 'reason'], registers });
    const refused = new Gauge({ name: 'mergeq_queue_fast_forward_refused', help: 'Whether branch protection refuses the App fast-forwarding the target branch (PRs then merge through the merge API).', labelNames: ['repo', 'branch'], registers });
    const installations = new Set<number>();
    for (const q of queues) {
      const id = this.installationOf(q.repo);
      if (id !== undefined) installations.add(id);
      refused.set({ repo: repoFullName(q.repo), branch: q.branch }, q.fastForwardRefused ? 1 : 0);
    }
    for (const [key, n] of this.writes) {
      const [installation, kind] = key.split('|') as [string, string];
      if (installations.has(Number(installation))) writes.inc({ installation, kind }, n);
    }
    for (const installation of installations) refusals.inc({ installation: String(installation) }, this.refusals.get(installation) ?? 0);
    for (const [key, n] of this.drops) {
      const [installation, kind, reason] = key.split('|') as [string, string, string];
      if (installations.has(Number(installation))) dropped.inc({ installation, kind, reason }, n);
    }
    for (const r of this.budget?.remaining() ?? []) {
      if (!installations.has(r.installation)) continue;
      const installation = String(r.installation);
      if (Number.isFinite(r.minute)) remaining.set({ installation, window: 'minute' }, r.minute);
      if (Number.isFinite(r.hour)) remaining.set({ installation, window: 'hour' }, r.hour);
    }
    return registry.metrics();
  }
}

function bump<K>(map: Map<K, number>, key: K): void {
  map.set(key, (map.get(key) ?? 0) + 1);
}
