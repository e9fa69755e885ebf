import type { TestCaseEvent } from '../domain/flaky.js';
import type { TestCase } from '../domain/quarantine.js';
import type { OutboxEvent } from './event-types.js';
import { eventId } from './queue-events.js';

/**
 * The outbox events of test-case changes the flaky-test detector writes (status and quarantine),
 * each with the test case as written in the same call. A quarantine-setting change that does not
 * change whether the test is quarantined is still a `test_case.quarantine_changed`. With `orgId`,
 * the events are that organization's (kept only while it has a webhook, docs/webhooks.md); without
 * it the dispatcher finds the repository owner's.
 */
export function testCaseOutboxEvents(changes: readonly TestCaseEvent[], testCases: readonly TestCase[], orgId: string | null = null): OutboxEvent[] {
  const byId = new Map(testCases.map((t) => [`${t.repoKey}\u0000${t.testCaseId}`, t]));
  return changes.map((change) => {
    const testCase = byId.get(`${change.repoKey}\u0000${change.testCaseId}`) ?? null;
    return {
      id: eventId('test-case', change.repoKey, change.testCaseId, JSON.stringify(change)),
      type: change.kind === 'status' ? 'test_case.status_changed' : 'test_case.quarantine_changed',
      at: change.at,
      orgId,
      repoKey: change.repoKey,
      branch: null,
      orderKey: `${change.repoKey}#${change.testCaseId}`,
      data: { kind: 'test_case', change, testCase },
    };
  });
}
