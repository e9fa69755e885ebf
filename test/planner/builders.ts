import { submitEntry } from '../../src/planner/index.js';
import type { Entry, Readiness, StackPlace } from '../../src/domain/entry.js';
import { derivedId } from '../../src/domain/ids.js';
import { resolvePriority, type PriorityName } from '../../src/domain/priority.js';
import { newQueueDoc, type QueueDoc } from '../../src/domain/queue.js';
import { defaultSettings, type QueueSettings } from '../../src/domain/settings.js';

/** Builders for planner tests: small queue snapshots, built through the real client commands. */

export const T0 = new Date('2026-11-22T10:00:00.000Z');

export function minutesAfter(start: Date, minutes: number): Date {
  return new Date(start.getTime() + minutes * 60_000);
}

export function emptyQueue(settings: Partial<QueueSettings> = {}): QueueDoc {
  return newQueueDoc({
    id: 'q1',
    orgId: 'org1',
    repo: { host: 'github.com', owner: 'acme', name: 'app' },
    branch: 'main',
    settings: defaultSettings({ requiredStatuses: ['ci'], ...settings }),
    at: T0.toISOString(),
    targetSha: 'main-0',
  });
}

export function readyReadiness(overrides: Partial<Readiness> = {}): Readiness {
  return {
    hasImpactedTargets: false,
    requiresImpactedTargets: false,
    doesBaseBranchMatch: true,
    gitHubMergeability: 'MERGEABLE',
    isOpen: true,
    isDraft: false,
    note: null,
    ...overrides,
  };
}

export interface SubmitOptions {
  priority?: PriorityName | number;
  /** Impacted targets of its head (parallel mode): every target, or these names. */
  targets?: 'ALL' | string[];
  readiness?: Partial<Readiness>;
  sha?: string;
  noBatch?: boolean;
  /** A member of a stack (stacked pull requests). */
  stack?: StackPlace;
}

/** Submits PR `prNumber` (ready unless told otherwise); returns the new queue and entry. */
export function submitPr(q: QueueDoc, prNumber: number, now: Date, opts: SubmitOptions = {}): { queue: QueueDoc; entry: Entry } {
  const { queue, entry } = submitEntry(
    q,
    {
      entryId: derivedId(q.id, 'entry', q.nextSeq),
      prNumber,
      prTitle: `PR ${prNumber}`,
      prSha: opts.sha ?? `pr${prNumber}-a`,
      prBaseBranch: q.branch,
      prAuthor: 'dev',
      priority: opts.priority === undefined ? null : resolvePriority(opts.priority),
      noBatch: opts.noBatch ?? null,
      readiness: readyReadiness(opts.readiness),
      ...(opts.stack ? { stack: opts.stack } : {}),
    },
    now,
  );
  return { queue, entry };
}

/** A queue with `n` ready PRs submitted at once (built directly: submitting one by one is quadratic). */
export function queueWithPrs(n: number, settings: Partial<QueueSettings> = {}, now: Date = T0): QueueDoc {
  const q = emptyQueue(settings);
  const template = submitPr(q, 1, now).entry;
  const entries: Entry[] = [];
  for (let i = 1; i <= n; i++) {
    entries.push({ ...template, id: derivedId(q.id, 'entry', i), seq: i, prNumber: i, prTitle: `PR ${i}`, prSha: `pr${i}-a` });
  }
  return { ...q, entries, nextSeq: n + 1 };
}
