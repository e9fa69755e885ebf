import { recordTargetHead } from '../../src/planner/index.js';
import { Harness } from './harness.js';

/**
 * Restart budgets (docs/queue-rules.md, "Restart budgets"; src/planner/phases/restart-budget.ts):
 * a PR restarted as a bystander more than `restartBudgets.bystander` times is held, and a run that
 * ended in a CI error is retried `restartBudgets.infrastructure` times, then its PR is held.
 */
const STORM_AT_2 = { stormRuns: 2, stormMinutes: 30 };

describe('restart budgets', () => {
  /**
   * Four PRs ahead of #20 that each fail their own run: #20 is restarted once per failure. Two runs
   * ended without a merge make a storm here, when the bystander budget applies.
   */
  function bystander(settings = {}) {
    const h = new Harness({ concurrency: 5, flakeRetries: 0, ...STORM_AT_2, ...settings });
    for (const n of [10, 11, 12, 13]) h.submit(n);
    h.submit(20);
    return h;
  }

  test('a bystander is retested after 3 restarts and held at the 4th, naming the culprits', () => {
    const h = bystander();
    h.fail(10);
    // A PR behind it that was restarted fewer times stays in queue order.
    h.submit(21, { priority: 'low' });
    h.fail(11);
    h.fail(12);
    expect(h.state(20)).toBe('TESTING');
    h.fail(13);
    const e = h.entry(20);
    expect(e.state).toBe('NOT_READY');
    expect(e.reason?.code).toBe('restart_budget');
    expect(e.reason?.message).toMatch(/held: restarted 4 times as a bystander by #10, #11, #12, #13 \(budget 3\)/);
    expect(e.hold).toMatchObject({ code: 'restart_budget', cause: 'bystander', culpritPrNumbers: [10, 11, 12, 13] });
    expect(h.state(21)).toBe('TESTING');
    // Not retested again while nothing changes.
    const runs = h.q.runs.length;
    h.advance(60);
    expect(h.q.runs.length).toBe(runs);
    expect(h.state(20)).toBe('NOT_READY');
    // Something merged: the hold lifts.
    h.pass(21);
    expect(h.merges.map((m) => m.prNumber)).toEqual([21]);
    expect(h.state(20)).toBe('TESTING');
  });

  test('the budget is a setting: bystander 1 holds at the 2nd restart; a person restart lifts the hold and starts the count afresh', () => {
    const h = bystander({ restartBudgets: { bystander: 1, infrastructure: 2 } });
    h.fail(10);
    h.submit(21, { priority: 'low' });
    expect(h.state(20)).toBe('TESTING');
    h.fail(11);
    expect([12, 13, 20, 21].map((n) => h.state(n))).toEqual(['NOT_READY', 'NOT_READY', 'NOT_READY', 'TESTING']);
    h.restart(12);
    h.restart(20);
    expect(h.entry(20).hold).toBeNull();
    // Not urgent: they go behind #21, which is testing.
    expect(h.order()).toEqual([21, 12, 20]);
    h.fail(12);
    expect(h.state(20)).toBe('TESTING');
    expect(h.state(13)).toBe('NOT_READY');
  });

  test('a merge starts the bystander count afresh: restarts behind failures while the queue merges are the queue at work', () => {
    const h = new Harness({ concurrency: 5, flakeRetries: 0, ...STORM_AT_2, restartBudgets: { bystander: 1, infrastructure: 2 } });
    for (const n of [10, 11, 12, 13, 20]) h.submit(n);
    h.fail(10);
    h.advance(1);
    h.pass(11);
    expect(h.merges.map((m) => m.prNumber)).toEqual([11]);
    h.advance(1);
    h.fail(12);
    // Its second restart, but the first since #11 merged.
    expect(h.state(20)).toBe('TESTING');
    h.submit(21, { priority: 'low' });
    h.advance(1);
    h.fail(13);
    expect(h.state(20)).toBe('NOT_READY');
    expect(h.entry(20).reason?.message).toMatch(/^held: restarted 2 times as a bystander by #12, #13 \(budget 1\)/);
  });

  test('the hold lifts when the target head changes', () => {
    // #10 and #11 stay in queue order as suspects while their flake reruns run.
    const h = bystander({ flakeRetries: 1, restartBudgets: { bystander: 0, infrastructure: 2 } });
    h.fail(10);
    // One run ended: no storm yet, so the bystanders are tested again.
    expect([11, 12, 13, 20].map((n) => h.state(n))).toEqual(['TESTING', 'TESTING', 'TESTING', 'TESTING']);
    h.fail(11);
    expect(h.state(10)).toBe('PENDING_FAILURE');
    expect(h.state(11)).toBe('PENDING_FAILURE');
    expect([12, 13, 20].map((n) => h.state(n))).toEqual(['NOT_READY', 'NOT_READY', 'NOT_READY']);
    h.q = recordTargetHead(h.q, 'pushed-by-someone', h.now);
    h.settle();
    expect([12, 13, 20].map((n) => h.state(n))).toEqual(['TESTING', 'TESTING', 'TESTING']);
  });

  test('outside a storm the bystander budget holds nothing: restarts behind failures are the queue at work', () => {
    const h = bystander({ stormRuns: 10, restartBudgets: { bystander: 0, infrastructure: 2 } });
    for (const n of [10, 11, 12, 13]) h.fail(n);
    expect(h.q.storm ?? null).toBeNull();
    expect(h.state(20)).toBe('TESTING');
    expect(h.entry(20).history.some((t) => t.reason.code === 'restart_budget')).toBe(false);
  });

  test('a held bystander is tested again once no other pull request is left in queue order', () => {
    const h = bystander({ restartBudgets: { bystander: 0, infrastructure: 2 } });
    h.submit(30);
    h.fail(10);
    h.fail(11);
    // The storm held every PR left (#12, #13, #20, #30): none could break their runs any more.
    expect(h.entry(20).history.some((t) => t.reason.code === 'restart_budget')).toBe(true);
    expect(h.q.units).toHaveLength(4);
    expect([12, 13, 20, 30].map((n) => h.state(n))).toEqual(['TESTING', 'TESTING', 'TESTING', 'TESTING']);
  });

  test('a CI error is retried twice (infrastructure_retry), then the PR is held with the CI\'s words; the PRs behind merge', () => {
    const h = new Harness({ concurrency: 2 });
    h.submit(1);
    h.submit(2);
    h.report(h.runOf(1), 'error');
    expect(h.entry(1).reason?.code).toBe('infrastructure_retry');
    expect(h.entry(1).reason?.message).toMatch(/CI errored \(ci: error\): retry 1 of 2/);
    h.report(h.runOf(1), 'error');
    expect(h.entry(1).reason?.message).toMatch(/retry 2 of 2/);
    const runsOf1 = () => h.q.runs.filter((r) => r.prs.at(-1)?.prNumber === 1).length;
    expect(runsOf1()).toBe(3);
    h.report(h.runOf(1), 'error');
    const e = h.entry(1);
    expect(e.state).toBe('NOT_READY');
    expect(e.reason?.code).toBe('restart_budget');
    expect(e.reason?.message).toMatch(/held: CI errored again \(ci: error\) after 2 infrastructure retries \(budget 2\)/);
    expect(e.hold).toMatchObject({ code: 'restart_budget', cause: 'infrastructure' });
    expect(e.history.some((t) => t.state === 'FAILED')).toBe(false);
    expect(runsOf1()).toBe(3);
    h.pass(2);
    expect(h.merges.map((m) => m.prNumber)).toEqual([2]);
    // Something merged: the hold lifts and #1 is tested again, with a fresh budget.
    expect(h.state(1)).toBe('TESTING');
  });

  test("budgets 0: a person's restarts, a flake rerun and a real failure hold nothing; a CI error holds at once", () => {
    const h = new Harness({ concurrency: 1, restartBudgets: { bystander: 0, infrastructure: 0 } });
    h.submit(1);
    h.restart(1);
    h.restart(1);
    h.fail(1); // a flake rerun (flakeRetries 1)
    expect(h.state(1)).toBe('PENDING_FAILURE');
    h.pass(1);
    expect(h.merges.map((m) => m.prNumber)).toEqual([1]);
    h.submit(2);
    h.fail(2);
    h.fail(2);
    expect(h.state(2)).toBe('FAILED');
    h.submit(3);
    h.report(h.runOf(3), 'error');
    expect(h.state(3)).toBe('NOT_READY');
    expect(h.entry(3).reason?.code).toBe('restart_budget');
  });
});
