import type { Entry, EntryHold, Transition } from '../../domain/entry.js';
import type { Unit } from '../../domain/queue.js';
import { reason, type ReasonCode } from '../../domain/reasons.js';
import type { TestRun } from '../../domain/run.js';
import { restartBudgetsOf, type QueueSettings } from '../../domain/settings.js';
import { isBystanderRestart } from '../../domain/verdict/derive.js';
import type { Sink } from '../draft.js';
import { failingChecks } from '../verdict.js';

/**
 * Restart budgets (docs/queue-rules.md, "Restart budgets"). Counted since the PR was submitted, a
 * person restarted it, or a hold of it was lifted (and a bystander's since the target branch last
 * moved: in a queue that merges, restarts behind failures are the queue at work):
 * - a PR restarted as a bystander (another PR broke a run it was in) more than
 *   `restartBudgets.bystander` times is held as NOT_READY (`restart_budget`) naming the culprits,
 *   rather than tested again behind them — only while the queue is in a storm (storm.ts): enforced
 *   at all times it held hundreds of PRs of a busy queue that merged well (docs/benchmarks.md);
 * - a run that ended in a CI error is retried `restartBudgets.infrastructure` times
 *   (`infrastructure_retry`), then its PR is held (`restart_budget`) with the CI's words.
 * The hold lifts as the spin guard's does (restart-loop.ts): when the target head changes (something
 * merged) or the queue's settings do, or when a person restarts or submits the PR again; a
 * bystander's also once no PR is left in queue order (none could break its run again). Its budgets
 * then start afresh.
 */
export function guardRestartBudgets(s: Sink): void {
  const d = s.d;
  if (!d.storm) return;
  const budget = restartBudgetsOf(d.settings).bystander;
  for (const e of [...d.entries.values()]) {
    if (e.state !== 'PENDING' || e.hold) continue;
    const restarts = bystanderRestarts(e, d.stormWatch?.movedAt ?? null);
    if (restarts.length <= budget) continue;
    const culprits = culpritsOf(restarts);
    const named = culprits.length > 0 ? ` by ${culprits.map((n) => `#${n}`).join(', ')}` : '';
    const message =
      `held: restarted ${restarts.length} times as a bystander${named} (budget ${budget}); ` +
      "no new test run until something merges, no other pull request is left in the queue, the queue's settings change, or someone restarts or submits it again";
    hold(s, e, { cause: 'bystander', message, culpritPrNumbers: culprits });
  }
}

/** Infrastructure retries the entry has used (`infrastructure_retry`) since its budgets were last reset. */
export function infrastructureRetriesUsed(e: Entry): number {
  return sinceReset(e.history).filter((t) => t.reason.code === 'infrastructure_retry').length;
}

/** Holds the unit whose run ended in a CI error once more than its budget allows. */
export function holdForInfrastructure(s: Sink, unit: Unit, run: TestRun): void {
  const d = s.d;
  const budget = restartBudgetsOf(d.settings).infrastructure;
  const words = ciWords(run);
  const message =
    `held: CI errored again (${words}) after ${budget} infrastructure retr${budget === 1 ? 'y' : 'ies'} (budget ${budget}); ` +
    "no new test run until something merges, the queue's settings change, or someone restarts or submits it again";
  for (const e of d.unitEntries(unit)) hold(s, e, { cause: 'infrastructure', message });
}

/** The CI's own words for a run that errored: each errored check, with its link. */
export function ciWords(run: TestRun): string {
  const failing = new Set(failingChecks(run));
  const checks = run.statusChecks.filter((c) => failing.has(c.context));
  return checks.map((c) => `${c.context}: ${c.state}${c.url ? ` ${c.url}` : ''}`).join(', ') || 'a required check errored';
}

function hold(s: Sink, e: Entry, what: { cause: 'bystander' | 'infrastructure'; message: string; culpritPrNumbers?: number[] }): void {
  const d = s.d;
  const held: EntryHold = {
    code: 'restart_budget',
    cause: what.cause,
    ...(what.culpritPrNumbers ? { culpritPrNumbers: what.culpritPrNumbers } : {}),
    message: what.message,
    since: d.nowIso,
    targetSha: d.base.targetSha,
    settingsKey: settingsKey(d.settings),
    untilPerson: false,
  };
  s.emit({ type: 'unplaceEntry', entryId: e.id });
  s.emit({
    type: 'transition',
    entryId: e.id,
    to: 'NOT_READY',
    reason: reason('restart_budget', what.message),
    set: { readyAt: null, testRunId: null, mergeIntent: null, retriesUsed: 0, hold: held },
  });
}

/** What resets the budgets: a submission, a person's restart, a hold (lifted since, or it would not be testing). */
const RESETS: ReadonlySet<ReasonCode> = new Set<ReasonCode>(['submitted', 'restarted_by_user', 'restart_budget', 'restart_loop']);

function sinceReset(history: readonly Transition[]): Transition[] {
  let i = history.length - 1;
  while (i > 0 && !RESETS.has(history[i]!.reason.code)) i--;
  return history.slice(i + 1);
}

/** Its bystander restarts since the budgets were reset and since the target last moved (`movedAt`). */
function bystanderRestarts(e: Entry, movedAt: string | null): Transition[] {
  const h = e.history;
  const from = h.length - sinceReset(h).length;
  const out: Transition[] = [];
  for (let i = from; i < h.length; i++) if (isBystanderRestart(h, i) && (movedAt === null || h[i]!.at > movedAt)) out.push(h[i]!);
  return out;
}

/** The PRs the restarts name (`#N`), most named first. */
function culpritsOf(restarts: readonly Transition[]): number[] {
  const counts = new Map<number, number>();
  for (const t of restarts) for (const m of t.reason.message.matchAll(/#(\d+)/g)) counts.set(Number(m[1]), (counts.get(Number(m[1])) ?? 0) + 1);
  return [...counts.entries()].sort((a, b) => b[1] - a[1] || a[0] - b[0]).slice(0, 10).map(([n]) => n);
}

/** The settings a hold was decided under: a change of any lifts it. */
export function settingsKey(settings: QueueSettings): string {
  return JSON.stringify(settings);
}
