import { derivedId } from '../domain/ids.js';
import type { Unit } from '../domain/queue.js';
import { reason } from '../domain/reasons.js';
import { isInFlight, type TestRun } from '../domain/run.js';
import { bisectionOutcome, nextProbes, obsoleteProbes } from './batching/bisection.js';
import { readProbes, type PrefixProbes } from './batch-probes.js';
import type { Draft, Sink } from './draft.js';
import { describeFailure } from './failure-reason.js';
import { dropResultsWith } from './invalidation.js';
import { placementIndex } from './placement.js';
import { createRun } from './run-builder.js';
import { wasOvertaken } from './suspicion.js';
import { unitPriority } from './units.js';

/**
 * Bisection of a batch whose failure is its own (queue-semantics.md, "Batching" rules 3-4): the
 * batch stays a suspect at its place while `bisection` runs test its prefixes, at most
 * `bisectionConcurrency` at once. Once the first failing prefix i is known, the batch is split in
 * place: entries 1..i-1 become a unit proven by the passing prefix i-1 (they merge), entry i stays
 * a suspect on its own — flake reruns, flake evidence and FAILED as for any single unit — and the
 * entries after it go back to PENDING, keeping their order, to be batched again. With `decide` false
 * (PRs ahead of the batch in its run are unresolved) the prefixes are tested but nothing is decided.
 */
export function bisectBatch(s: Sink, unit: Unit, failed: TestRun, decide: boolean): void {
  const d = s.d;
  let since = bisectionStart(d, unit);
  if (since === null) {
    since = d.nowIso;
    const f = describeFailure(d, failed);
    for (const id of unit.entryIds) {
      s.emit({
        type: 'transition',
        entryId: id,
        to: 'PENDING_FAILURE',
        reason: reason('bisection_started', `its batch failed (${f.text}): testing prefixes of the batch to find the first culprit`),
      });
    }
  }
  const n = unit.entryIds.length;
  let probes = readProbes(d, unit, failed, since);
  const obsolete = obsoleteProbes(n, probes.known, probes.options);
  if (obsolete.length > 0) {
    for (const k of obsolete) for (const run of probes.live.get(k) ?? []) s.emit({ type: 'cancelRun', runId: run.id, reason: 'bisection: this prefix can no longer narrow the search' });
    probes = readProbes(d, unit, failed, since);
  }
  const outcome = bisectionOutcome(n, probes.known, probes.options);
  if (outcome.kind === 'searching') {
    if (d.state !== 'running') return;
    for (const k of nextProbes(n, probes.known, d.settings.bisectionConcurrency, probes.options)) {
      createRun(s, unit, [...probes.deps, ...unit.entryIds.slice(0, k)], { kind: 'bisection' });
    }
    return;
  }
  if (!decide) return;
  const overtaken = wasOvertaken(d.entry(unit.entryIds[0]!)!);
  if (outcome.kind === 'all_passed') {
    if (overtaken) {
      // PRs merged past it meanwhile are not in its prefix runs: a verdict, not a proof.
      s.emit({ type: 'placeUnit', unit, index: placementIndex(d, unitPriority(d, unit), unit, true), seq: null });
      const why = reason('retry_passed', 'its batch passed when retested in bisection (a flake), but pull requests merged past it meanwhile: it re-enters the queue at the tail');
      for (const id of unit.entryIds) s.emit({ type: 'transition', entryId: id, to: 'PENDING', reason: why, set: { testRunId: null, retriesUsed: 0, readyAt: d.nowIso } });
      for (const id of unit.entryIds) dropResultsWith(s, id, why);
      return;
    }
    const proof = probes.runs.get(n)!;
    for (const id of unit.entryIds) {
      s.emit({
        type: 'transition',
        entryId: id,
        to: 'TESTS_PASSED',
        reason: reason('bisection_cleared', 'its batch passed when retested in bisection: the failure was a flake'),
        set: { testRunId: proof.id, retriesUsed: 0 },
      });
    }
    return;
  }
  split(s, unit, outcome.index, probes, overtaken);
}

function split(s: Sink, unit: Unit, i: number, probes: PrefixProbes, overtaken: boolean): void {
  const d = s.d;
  const ids = unit.entryIds.slice();
  const label = (id: string): string => `#${d.entry(id)!.prNumber}`;
  const cleared = ids.slice(0, i - 1);
  const culprit = ids[i - 1]!;
  const rest = ids.slice(i);
  const failing = probes.runs.get(i)!;

  if (cleared.length > 0) {
    const proof = probes.runs.get(i - 1)!;
    for (const id of cleared) s.emit({ type: 'unplaceEntry', entryId: id });
    const seq = d.nextSeq;
    const part = { id: derivedId(d.base.id, 'unit', seq), entryIds: cleared, createdAt: d.nowIso };
    const upTo = label(cleared[cleared.length - 1]!);
    if (overtaken) {
      // Pull requests merged past it meanwhile are not in its prefix runs: they cleared it, but
      // prove nothing that lands now. It is tested again at the tail, kept together.
      s.emit({ type: 'placeUnit', unit: part, index: placementIndex(d, unitPriority(d, part), part, false), seq });
      const why = reason('retry_passed', `bisection: the batch up to ${upTo} passed, but pull requests merged past it meanwhile: it re-enters the queue at the tail`);
      for (const id of cleared) s.emit({ type: 'transition', entryId: id, to: 'PENDING', reason: why, set: { testRunId: null, retriesUsed: 0, readyAt: d.nowIso } });
      // Its prefix runs may not prove it at the tail either.
      for (const id of cleared) dropResultsWith(s, id, why);
    } else {
      s.emit({ type: 'placeUnit', unit: part, index: d.unitIndex().get(unit.id)!, seq });
      const why = reason('bisection_cleared', `bisection: the batch up to ${upTo} passed; merging`);
      for (const id of cleared) s.emit({ type: 'transition', entryId: id, to: 'TESTS_PASSED', reason: why, set: { testRunId: proof.id, retriesUsed: 0 } });
    }
  }

  for (const id of rest) s.emit({ type: 'unplaceEntry', entryId: id });
  // The members of the culprit's stack above it hold its changes: they wait, out of the queue, for
  // its verdict (a flake rerun that passes brings them back with it; its failure takes them out).
  const stackId = d.entry(culprit)!.stack?.id;
  const above = rest.filter((id) => stackId !== undefined && d.entry(id)!.stack?.id === stackId);
  const wait = reason('not_ready', `waiting for stack member ${label(culprit)}: bisection named it, and its failure is checked for a flake`);
  for (const id of above) s.emit({ type: 'transition', entryId: id, to: 'NOT_READY', reason: wait, set: { testRunId: null, retriesUsed: 0, mergeIntent: null, readyAt: null } });
  // The other entries go back to PENDING in order, to be batched again; a stack's members as one unit.
  let at = d.unitIndex().get(unit.id)! + 1;
  const back = reason('batch_split', `bisection named ${label(culprit)} ahead of it in its batch: back to PENDING to be batched again`);
  for (const group of stackGroups(d, rest.filter((id) => !above.includes(id)))) {
    const seq = d.nextSeq;
    s.emit({ type: 'placeUnit', unit: { id: derivedId(d.base.id, 'unit', seq), entryIds: group, createdAt: d.nowIso }, index: at++, seq });
    for (const id of group) s.emit({ type: 'transition', entryId: id, to: 'PENDING', reason: back, set: { testRunId: null, retriesUsed: 0, mergeIntent: null } });
  }

  const f = describeFailure(d, failing);
  const first = i === 1 ? 'the first entry of the batch failed alone' : `the batch passed up to ${label(ids[i - 2]!)} and failed with it`;
  s.emit({
    type: 'transition',
    entryId: culprit,
    to: 'PENDING_FAILURE',
    reason: reason('bisection_culprit', `bisection: ${first} (${f.text}); checking whether it was a flake`),
    set: { testRunId: failing.id, retriesUsed: 0 },
  });
}

/** Consecutive entries of one stack stay one unit; any other entry is a unit of its own. */
function stackGroups(d: Draft, ids: readonly string[]): string[][] {
  const groups: string[][] = [];
  let last: string | undefined;
  for (const id of ids) {
    const stack = d.entry(id)!.stack?.id;
    if (stack !== undefined && stack === last) groups[groups.length - 1]!.push(id);
    else groups.push([id]);
    last = stack;
  }
  return groups;
}

/** When the unit's current bisection began; null when it is not being bisected. */
export function bisectionStart(d: Draft, unit: Unit): string | null {
  if (unit.entryIds.length < 2) return null;
  const history = d.entry(unit.entryIds[0]!)?.history ?? [];
  for (let i = history.length - 1; i >= 0; i--) {
    const t = history[i]!;
    if (t.state !== 'PENDING_FAILURE') return null;
    if (t.reason.code === 'bisection_started') return t.at;
  }
  return null;
}

/** A bisection run in flight that its batch still waits for (it decides no entry by itself). */
export function keepsProbe(d: Draft, run: TestRun): boolean {
  if (run.kind !== 'bisection' || !isInFlight(run)) return false;
  const unit = d.units[d.unitIndex().get(run.unitId) ?? -1];
  return !!unit && bisectionStart(d, unit) !== null;
}
