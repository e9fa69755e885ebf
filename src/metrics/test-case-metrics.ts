import { Gauge, type Registry } from 'prom-client';
import type { QueueDoc } from '../domain/queue.js';
import { repoFullName } from '../domain/repo.js';
import type { MetricsService } from '../service/metrics-service.js';

const LABELS = ['repo', 'branch', 'queue_type'] as const;

/**
 * Flaky, broken and quarantined test counts of each queue's repository. api.md puts `repo`, `branch`
 * and `queue_type` on every series, so a repository's counts appear on each of its queues (main queue
 * type); dashboards filter by branch, and summing across branches counts a repository more than once.
 */
export async function recordTestCaseCounts(registry: Registry, service: MetricsService, orgId: string, queues: QueueDoc[]): Promise<void> {
  const registers = [registry];
  const labelNames = LABELS;
  const flaky = new Gauge({ name: 'mq_flaky_tests_current', help: "Test cases of the queue's repository whose status is flaky now.", labelNames, registers });
  const broken = new Gauge({ name: 'mq_broken_tests_current', help: "Test cases of the queue's repository whose status is broken now.", labelNames, registers });
  const quarantined = new Gauge({ name: 'mq_quarantined_tests_current', help: "Test cases of the queue's repository quarantined now.", labelNames, registers });
  if (queues.length === 0) return;

  const counts = new Map((await service.testCaseCounts(orgId)).map((c) => [c.repoKey, c]));
  for (const queue of queues) {
    const c = counts.get(queue.repoKey) ?? { flaky: 0, broken: 0, quarantined: 0 };
    const labels = { repo: repoFullName(queue.repo), branch: queue.branch, queue_type: 'main' };
    // inc, not set: queues with the same labels (same owner/name on two hosts) add up, as elsewhere.
    flaky.inc(labels, c.flaky);
    broken.inc(labels, c.broken);
    quarantined.inc(labels, c.quarantined);
  }
}
