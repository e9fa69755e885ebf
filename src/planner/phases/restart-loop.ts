import type { Entry, EntryHold } from '../../domain/entry.js';
import { reason, type Reason } from '../../domain/reasons.js';
import type { Draft, Sink } from '../draft.js';
import { settingsKey } from './restart-budget.js';

/**
 * The spin guard. Whatever the git host answers (the same commit again, a base the queue cannot use,
 * a result for an older run), a PR is never rebuilt without end: one restarted more than
 * MAX_RESTARTS times within RESTART_WINDOW_MS is held as NOT_READY (`restart_loop`), naming what
 * kept restarting it, and no run is started for it until the target head or the queue's settings
 * change, or a person restarts or submits it again. A PR held a second time waits for a person: the
 * change that lifted the first hold did not cure it. Normal queues restart a PR when a PR ahead of it
 * fails, a few times an hour at most.
 */
export const MAX_RESTARTS = 10;
export const RESTART_WINDOW_MS = 60_000;
/**
 * The slow loop: a git host whose answers keep moving the target under the queue (`base_moved`) makes
 * a PR restart once a CI run, not many times a minute. Other restarts (a PR ahead failed, an urgent
 * PR overtook it) are the queue at work and do not count here.
 */
export const MAX_BASE_MOVES = 20;
export const BASE_MOVE_WINDOW_MS = 60 * 60_000;

const RESTARTED_FROM = new Set(['TESTING', 'TESTS_PASSED', 'PENDING_FAILURE']);

/** Holds the PENDING entries that restarted too often of late; lifts holds whose cause changed (restart budgets' too). */
export function guardRestartLoops(s: Sink): void {
  const d = s.d;
  for (const e of [...d.entries.values()]) {
    if (e.hold) {
      if (e.state === 'NOT_READY' && holdOutlived(e.hold, d)) s.emit({ type: 'patchEntry', entryId: e.id, set: { hold: null } });
      continue;
    }
    if (e.state !== 'PENDING') continue;
    const now = d.now.getTime();
    const restarts = restartsSince(e, now - RESTART_WINDOW_MS);
    const moves = restartsSince(e, now - BASE_MOVE_WINDOW_MS).filter((r) => r.code === 'base_moved');
    const loop = restarts.length > MAX_RESTARTS ? { n: restarts.length, window: 'a minute', reasons: restarts } : null;
    const slow = moves.length > MAX_BASE_MOVES ? { n: moves.length, window: 'an hour', reasons: moves } : null;
    const found = loop ?? slow;
    if (!found) continue;
    const cause = mostFrequent(found.reasons);
    const untilPerson = e.history.some((t) => t.reason.code === 'restart_loop');
    const until = untilPerson
      ? 'held again: no new test run until someone restarts or submits it again'
      : "no new test run until the target branch or the queue's settings change, or someone restarts or submits it again";
    const message = `held: restarted ${found.n} times in ${found.window} (${cause.message}); ${until}`;
    const hold: EntryHold = {
      code: 'restart_loop',
      message,
      since: d.nowIso,
      targetSha: d.base.targetSha,
      settingsKey: settingsKey(d.settings),
      untilPerson,
    };
    s.emit({ type: 'unplaceEntry', entryId: e.id });
    s.emit({ type: 'transition', entryId: e.id, to: 'NOT_READY', reason: reason('restart_loop', message), set: { readyAt: null, hold } });
  }
}

/** The reasons of the entry's restarts (back to PENDING from a test state) since `since` (epoch ms). */
function restartsSince(e: Entry, since: number): Reason[] {
  const out: Reason[] = [];
  const h = e.history;
  for (let i = h.length - 1; i > 0; i--) {
    const t = h[i]!;
    if (Date.parse(t.at) < since) break;
    // A person's restarts are asked for, not a loop.
    if (t.state === 'PENDING' && RESTARTED_FROM.has(h[i - 1]!.state) && t.reason.code !== 'restarted_by_user') out.push(t.reason);
  }
  return out;
}

function mostFrequent(reasons: readonly Reason[]): Reason {
  const counts = new Map<string, { r: Reason; n: number }>();
  for (const r of reasons) {
    const c = counts.get(r.message) ?? { r, n: 0 };
    c.n++;
    counts.set(r.message, c);
  }
  return [...counts.values()].sort((a, b) => b.n - a.n)[0]!.r;
}

function holdOutlived(hold: EntryHold, d: Draft): boolean {
  if (hold.untilPerson) return false;
  if (d.base.targetSha !== hold.targetSha || settingsKey(d.settings) !== hold.settingsKey) return true;
  // A bystander held past its budget: with no PR left in queue order, none can break its run again.
  return hold.code === 'restart_budget' && hold.cause === 'bystander' && d.units.length === 0;
}
