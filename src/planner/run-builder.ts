import { derivedId } from '../domain/ids.js';
import type { Unit } from '../domain/queue.js';
import { testBranchName, type RunKind, type RunPr, type TestRun } from '../domain/run.js';
import type { Sink } from './draft.js';

/** Writes a new run as `creating`: the engine builds its test branch from `prs`, in order. */
export function createRun(
  s: Sink,
  unit: Unit,
  entryIds: readonly string[],
  opts: { kind?: RunKind; attempt?: number } = {},
): TestRun {
  const d = s.d;
  const seq = d.nextSeq;
  const id = derivedId(d.base.id, 'run', seq);
  const own = new Set(unit.entryIds);
  const prs: RunPr[] = entryIds.map((entryId) => {
    const e = d.entry(entryId)!;
    return { entryId, prNumber: e.prNumber, prSha: e.prSha, prTitle: e.prTitle, ...(e.prHeadRef ? { prHeadRef: e.prHeadRef } : {}) };
  });
  const required = d.settings.requiredStatuses;
  const run: TestRun = {
    id,
    queueId: d.base.id,
    kind: opts.kind ?? 'main',
    status: 'creating',
    unitId: unit.id,
    prs,
    dependencyEntryIds: entryIds.filter((e) => !own.has(e)),
    attempt: opts.attempt ?? 0,
    testBranch: testBranchName(d.base.branch, id),
    testBranchSha: null,
    baseSha: null,
    createdAt: d.nowIso,
    finishedAt: null,
    requiredStatuses: required ? required.slice() : [],
    requiredStatusesSource: required ? 'queue' : 'branch_protection',
    statusChecks: [],
    conflictEntryId: null,
    cancelReason: null,
    cleanedUp: false,
  };
  s.emit({ type: 'createRun', run, seq });
  return run;
}
