import { knownSharedPrefix } from '../appended-arrays.js';
import type { Entry } from '../entry.js';
import type { QueueDoc } from '../queue.js';
import { carriesVerdict, deriveVerdict } from './derive.js';
import type { Verdict } from './verdict.js';

/**
 * `next` with a verdict on each transition that `prev` did not hold and that removes or restarts a PR,
 * derived from `next` itself (its runs before anything is archived). Entries without such a
 * transition stay the same objects, so a commit writes only what changed.
 */
export function withVerdicts(prev: QueueDoc | null, next: QueueDoc): QueueDoc {
  const before = prev?.entries ?? [];
  let byId: Map<string, number> | null = null;
  /** How many steps `prev` held for the entry at `index` (as queueEvents counts them). */
  const seenOf = (entry: Entry, index: number): number => {
    const there = before[index];
    if (there?.id === entry.id) return there.history.length;
    if (!prev || entry.seq >= prev.nextSeq) return 0;
    byId ??= new Map(before.map((e) => [e.id, e.history.length]));
    return byId.get(entry.id) ?? 0;
  };
  let entries: Entry[] | null = null;
  for (let i = prev ? (knownSharedPrefix(before, next.entries) ?? 0) : 0; i < next.entries.length; i++) {
    const entry = next.entries[i]!;
    if (before[i] === entry) continue;
    let history: Entry['history'] | null = null;
    for (let k = seenOf(entry, i); k < entry.history.length; k++) {
      const step = entry.history[k]!;
      if (step.verdict || !carriesVerdict(step)) continue;
      const verdict = deriveVerdict(next, entry, k);
      if (!verdict) continue;
      history ??= [...entry.history];
      history[k] = { ...step, verdict };
    }
    if (!history) continue;
    entries ??= [...next.entries];
    entries[i] = { ...entry, history };
  }
  return entries ? { ...next, entries } : next;
}

/** The PR's verdict: the newest one its history carries; null while nothing removed or restarted it. */
export function latestVerdict(entry: Pick<Entry, 'history'>): Verdict | null {
  for (let i = entry.history.length - 1; i >= 0; i--) {
    const v = entry.history[i]!.verdict;
    if (v) return v;
  }
  return null;
}

/** The runs a verdict names in its evidence (ids). */
export function runIdsOf(verdict: Verdict): string[] {
  switch (verdict.code) {
    case 'culprit':
      return [...verdict.evidence.runs, ...verdict.evidence.isolation.bisectionRuns].map((r) => r.id);
    case 'bystander':
    case 'flaky':
    case 'infrastructure':
      return verdict.evidence.runs.map((r) => r.id);
    case 'conflict':
      return verdict.evidence.runId ? [verdict.evidence.runId] : [];
    default:
      return [];
  }
}
