import type { Unit } from '../../domain/queue.js';
import { isInfrastructureFailure } from '../../domain/verdict/run-refs.js';
import { stormSettingsOf } from '../../domain/settings.js';
import { stormOf, type StormRunEnd, type StormWatch } from '../../domain/storm.js';
import type { TestRun } from '../../domain/run.js';
import type { Draft, Sink } from '../draft.js';
import { failingChecks } from '../verdict.js';
import { isForgivable } from '../test-results.js';

/**
 * Storms (docs/queue-rules.md, "Storms"): the ledger of runs that ended since the target branch
 * last moved and within the last `stormMinutes` is brought up to date from the document's runs
 * (finished runs are archived soon after, so the ledger remembers them), and the storm is in force
 * while it holds `stormRuns` of them. A move of the target (a merge) empties the ledger.
 */
export function watchStorm(s: Sink): void {
  const d = s.d;
  const settings = stormSettingsOf(d.settings);
  const prev = d.stormWatch;
  const targetSha = d.base.targetSha;
  const moved = prev !== undefined && prev.targetSha !== null && prev.targetSha !== targetSha;
  const from = d.now.getTime() - settings.minutes * 60_000;
  const movedAt = moved ? d.nowIso : (prev?.movedAt ?? null);
  // Runs that ended before the target last moved (the merge one of them proved, say) are no storm.
  const counts = (at: string) => Date.parse(at) > from && (movedAt === null || at > movedAt);
  const byId = new Map<string, StormRunEnd>();
  for (const e of prev?.ends ?? []) if (counts(e.at)) byId.set(e.runId, e);
  for (const run of d.runs.values()) {
    const end = endOf(run);
    if (end && counts(end.at)) byId.set(run.id, end);
  }
  const ends = [...byId.values()].sort((a, b) => (a.at < b.at ? -1 : a.at > b.at ? 1 : a.runId < b.runId ? -1 : 1)).slice(-Math.max(2 * settings.runs, 20));
  // Nothing to remember yet: the document stays as it is (queues written before storms were watched too).
  if (prev === undefined && ends.length === 0 && !d.storm) return;
  const watch: StormWatch = { targetSha, ends, movedAt };
  const storm = stormOf(ends, settings, d.storm?.since ?? null, d.nowIso);
  if (JSON.stringify(watch) === JSON.stringify(prev ?? null) && JSON.stringify(storm) === JSON.stringify(d.storm ?? null)) return;
  s.emit({ type: 'setStorm', watch, storm });
}

function endOf(run: TestRun): StormRunEnd | null {
  if ((run.status !== 'passed' && run.status !== 'failed' && run.status !== 'timed_out') || !run.finishedAt) return null;
  const prNumbers = run.prs.filter((p) => !run.dependencyEntryIds.includes(p.entryId)).map((p) => p.prNumber);
  const errored = run.status === 'failed' && isInfrastructureFailure(run) ? failingChecks(run) : [];
  const flakyTests = (run.testResults?.failedTests ?? []).filter(isForgivable).map((t) => t.name);
  return { runId: run.id, at: run.finishedAt, status: run.status, prNumbers, erroredChecks: errored, flakyTests };
}

/**
 * `stormPause`: while a storm lasts only the head unit of the queue starts runs; the units behind it
 * wait (no speculation past a failing head).
 */
export function pausedByStorm(d: Draft, unit: Unit): boolean {
  if (!d.storm || !stormSettingsOf(d.settings).pause) return false;
  return d.units[0]?.id !== unit.id;
}
