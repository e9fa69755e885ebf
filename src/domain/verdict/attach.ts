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
  const refined = withLateTestResults(prev, entries ?? next.entries, next);
  return refined ? { ...next, entries: refined } : entries ? { ...next, entries } : next;
}

/**
 * CI often uploads a run's test results a moment after the statuses that decided it: a verdict that
 * names a run whose results arrived since is derived again (same transition, same time), so it names
 * the failing tests. Null when no verdict changed.
 */
function withLateTestResults(prev: QueueDoc | null, entries: Entry[], next: QueueDoc): Entry[] | null {
  if (!prev || prev.runs === next.runs) return null;
  const before = new Map(prev.runs.map((r) => [r.id, r]));
  const late = new Set(next.runs.filter((r) => r.testResults && before.has(r.id) && before.get(r.id)!.testResults !== r.testResults).map((r) => r.id));
  if (late.size === 0) return null;
  const holders = new Set(next.runs.filter((r) => late.has(r.id)).flatMap((r) => r.prs.map((p) => p.entryId)));
  let out: Entry[] | null = null;
  entries.forEach((entry, i) => {
    if (!holders.has(entry.id)) return;
    let history: Entry['history'] | null = null;
    entry.history.forEach((step, k) => {
      if (!step.verdict || !runIdsOf(step.verdict).some((id) => late.has(id))) return;
      const verdict = deriveVerdict({ ...next, entries }, entry, k);
      if (!verdict) return;
      history ??= [...entry.history];
      history[k] = { ...step, verdict };
    });
    if (!history) return;
    out ??= [...entries];
    out[i] = { ...entry, history };
  });
  return out;
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
