import type { DetectionScope, FlakySettings, TestCaseEvent, TestResult, TestUpload } from '../../domain/flaky.js';
import type { TestCase } from '../../domain/quarantine.js';
import { latestFlakyCommits } from '../../domain/detection-evidence.js';
import { testCaseOutboxEvents } from '../../events/test-case-events.js';
import type { MemoryOutbox } from './memory-outbox.js';
import { allStillAsRead, fieldsHold } from '../fields-hold.js';
import { LOST, type TestCaseCounts, type TestCaseStore, type TestUploadWrite } from '../store.js';

/** Flaky-test data in memory, for the simulation store; copies in and out, as a real adapter. */
export class MemoryFlakyTables implements TestCaseStore {
  private readonly uploads = new Map<string, TestUpload>();
  /**
   * Results by repository and test case, oldest first, with their insertion order. A result never
   * changes once stored, so they are frozen and handed out shared rather than copied. Indexed by
   * commit and branch, so that `detectionResults` costs what it returns, not the whole history.
   */
  private readonly results = new Map<string, CaseResults>();
  private resultSeq = 0;
  private lastAt = '';
  /** Every result was stored no earlier than the one before it. */
  private inTimeOrder = true;
  /** Per repository: results older than this are dropped (lazily, and never read). */
  private readonly keptSince = new Map<string, string>();
  private readonly cases = new Map<string, TestCase>();
  private readonly events: TestCaseEvent[] = [];
  private readonly settings = new Map<string, FlakySettings>();

  constructor(private readonly outbox?: Pick<MemoryOutbox, 'insertEvents'>) {}

  async getTestUpload(repoKey: string, uploadId: string): Promise<TestUpload | null> {
    return copy(this.uploads.get(key(repoKey, uploadId)) ?? null);
  }

  async commitTestUpload(write: TestUploadWrite): Promise<boolean | typeof LOST> {
    const k = key(write.upload.repoKey, write.upload.uploadId);
    if (this.uploads.has(k)) return false;
    if (!allStillAsRead(write.asRead, (tc) => this.cases.get(key(tc.repoKey, tc.testCaseId)))) return LOST;
    // Copied whole before anything is stored: a write that cannot be read stores nothing, its claim included.
    const w = copy(write);
    this.uploads.set(k, w.upload);
    const floor = this.keptSince.get(w.upload.repoKey);
    if (floor === undefined || w.keepResultsSince > floor) this.keptSince.set(w.upload.repoKey, w.keepResultsSince);
    for (const r of w.results) {
      const k2 = key(r.repoKey, r.testCaseId);
      let cr = this.results.get(k2);
      if (!cr) this.results.set(k2, (cr = new CaseResults()));
      cr.dropBefore(w.keepResultsSince);
      if (r.at < this.lastAt) this.inTimeOrder = false;
      else this.lastAt = r.at;
      cr.add({ seq: this.resultSeq++, r: Object.freeze(r) });
    }
    await this.writeTestCases(w.testCases, w.events, w.orgId);
    return true;
  }

  async getTestCases(repoKey: string, testCaseIds: string[]): Promise<TestCase[]> {
    return testCaseIds.flatMap((id) => {
      const tc = this.cases.get(key(repoKey, id));
      return tc ? [copy(tc)] : [];
    });
  }

  async existingTestCaseIds(repoKey: string, testCaseIds: string[]): Promise<string[]> {
    return testCaseIds.filter((id) => this.cases.has(key(repoKey, id)));
  }

  async testCasesToWatch(repoKey: string, failedSince: string): Promise<TestCase[]> {
    return copy(
      [...this.cases.values()].filter(
        (tc) =>
          tc.repoKey === repoKey &&
          (tc.status !== 'healthy' || tc.quarantinedAt !== null || (tc.lastFailedAt != null && tc.lastFailedAt >= failedSince)),
      ),
    );
  }

  async updateTestCase(expected: TestCase, next: TestCase, events: TestCaseEvent[], orgId?: string): Promise<boolean> {
    const stored = this.cases.get(key(expected.repoKey, expected.testCaseId));
    if (!stored || !fieldsHold(stored, expected)) return false;
    await this.writeTestCases([next], events, orgId);
    return true;
  }

  async writeTestCases(testCases: TestCase[], events: TestCaseEvent[], orgId?: string): Promise<void> {
    for (const tc of testCases) this.cases.set(key(tc.repoKey, tc.testCaseId), copy(tc));
    this.events.push(...copy(events));
    this.outbox?.insertEvents(testCaseOutboxEvents(events, testCases, orgId));
  }

  async upsertTestCase(testCase: TestCase): Promise<void> {
    await this.writeTestCases([testCase], []);
  }

  async getTestCase(repoKey: string, testCaseId: string): Promise<TestCase | null> {
    return copy(this.cases.get(key(repoKey, testCaseId)) ?? null);
  }

  async listQuarantinedTests(repoKey: string, page: { offset: number; limit: number }): Promise<{ rows: TestCase[]; total: number }> {
    const all = [...this.cases.values()]
      .filter((tc) => tc.repoKey === repoKey && tc.quarantinedAt !== null)
      .sort((a, b) => cmp(b.quarantinedAt!, a.quarantinedAt!) || cmp(a.testCaseId, b.testCaseId));
    return { rows: copy(all.slice(page.offset, page.offset + page.limit)), total: all.length };
  }

  async listFlakyTests(repoKey: string, page: { offset: number; limit: number }): Promise<{ rows: TestCase[]; total: number }> {
    const all = [...this.cases.values()]
      .filter((tc) => tc.repoKey === repoKey && (tc.status !== 'healthy' || tc.quarantinedAt !== null))
      .sort((a, b) => cmp(b.statusLastUpdatedAt, a.statusLastUpdatedAt) || cmp(a.testCaseId, b.testCaseId));
    return { rows: copy(all.slice(page.offset, page.offset + page.limit)), total: all.length };
  }

  async testResults(repoKey: string, testCaseIds: string[], since: string): Promise<TestResult[]> {
    const from = this.floor(repoKey, since);
    return this.inOrder([...new Set(testCaseIds)].flatMap((id) => (this.results.get(key(repoKey, id))?.all ?? []).filter((x) => x.r.at >= from)));
  }

  async detectionResults(repoKey: string, testCaseIds: string[], since: string, scope: DetectionScope): Promise<TestResult[]> {
    const from = this.floor(repoKey, since);
    return this.inOrder([...new Set(testCaseIds)].flatMap((id) => this.results.get(key(repoKey, id))?.forDetection(from, scope, this.inTimeOrder) ?? []));
  }

  private floor(repoKey: string, since: string): string {
    const floor = this.keptSince.get(repoKey) ?? '';
    return floor > since ? floor : since;
  }

  private inOrder(matching: Entry[]): TestResult[] {
    if (this.inTimeOrder) {
      // Stored oldest first (the simulation's clock only moves on): insertion order is time order,
      // and a numeric sort of the sequence numbers is far cheaper than comparing times.
      const bySeq = new Map(matching.map((x) => [x.seq, x.r]));
      return Array.from(Float64Array.from(matching, (x) => x.seq).sort(), (seq) => bySeq.get(seq) as TestResult);
    }
    // Ties stay in insertion order.
    return matching.sort((a, b) => cmp(a.r.at, b.r.at) || a.seq - b.seq).map((x) => x.r as TestResult);
  }

  async testCaseEvents(repoKey: string, testCaseId: string): Promise<TestCaseEvent[]> {
    return copy(this.events.filter((e) => e.repoKey === repoKey && e.testCaseId === testCaseId));
  }

  async getFlakySettings(repoKey: string): Promise<FlakySettings | null> {
    return copy(this.settings.get(repoKey) ?? null);
  }

  async updateFlakySettings(repoKey: string, expected: FlakySettings | null, next: FlakySettings): Promise<boolean> {
    const stored = this.settings.get(repoKey) ?? null;
    if (expected === null ? stored !== null : stored === null || !fieldsHold(stored, expected)) return false;
    this.settings.set(repoKey, copy(next));
    return true;
  }

  async putFlakySettings(repoKey: string, settings: FlakySettings): Promise<void> {
    this.settings.set(repoKey, copy(settings));
  }

  async testCaseCounts(ownerKeys: string[]): Promise<TestCaseCounts[]> {
    const repoKeys = [...this.cases.values()].map((tc) => tc.repoKey).filter((k) => ownerKeys.some((o) => k.startsWith(`${o}/`)));
    return [...new Set(repoKeys)]
      .sort()
      .map((repoKey) => {
        const cases = [...this.cases.values()].filter((tc) => tc.repoKey === repoKey);
        return {
          repoKey,
          flaky: cases.filter((tc) => tc.status === 'flaky').length,
          broken: cases.filter((tc) => tc.status === 'broken').length,
          quarantined: cases.filter((tc) => tc.quarantinedAt !== null).length,
          any: cases.length > 0,
        };
      })
      .filter((c) => c.any)
      .map(({ any: _any, ...counts }) => counts);
  }
}

type Entry = { seq: number; r: Readonly<TestResult> };

/** One test case's results, oldest first, with the indexes detection reads them by. */
class CaseResults {
  readonly all: Entry[] = [];
  private readonly byCommit = new Map<string, Entry[]>();
  private readonly byBranch = new Map<string, Entry[]>();
  /** Commits with both a failed and a passed attempt among their results (or before a drop). */
  private readonly flakyCommits = new Set<string>();
  /** Flaky commits as their usable results came, so the latest flaky events are found from its end. */
  private recent: string[] = [];

  add(e: Entry): void {
    this.all.push(e);
    push(this.byCommit, e.r.commitSha, e);
    if (e.r.branch !== null) push(this.byBranch, e.r.branch, e);
    const sha = e.r.commitSha;
    if (!this.flakyCommits.has(sha) && flakyAmong(this.byCommit.get(sha)!)) this.flakyCommits.add(sha);
    if (this.flakyCommits.has(sha) && usable(e)) {
      this.recent.push(sha);
      if (this.recent.length > 64 + 4 * this.flakyCommits.size) this.recent = lastOfEach(this.recent);
    }
  }

  dropBefore(at: string): void {
    let drop = 0;
    while (drop < this.all.length && this.all[drop]!.r.at < at) drop++;
    for (const e of this.all.splice(0, drop)) {
      unlink(this.byCommit, e.r.commitSha, e);
      if (!this.byCommit.has(e.r.commitSha)) this.flakyCommits.delete(e.r.commitSha);
      if (e.r.branch !== null) unlink(this.byBranch, e.r.branch, e);
    }
  }

  /** The entries `detectionResults` names, at or after `from`, in no particular order. */
  forDetection(from: string, scope: DetectionScope, inTimeOrder: boolean): Entry[] {
    const picked = new Map<number, Entry>();
    const take = (entries: readonly Entry[] | undefined) => {
      for (const e of entries ?? []) if (e.r.at >= from) picked.set(e.seq, e);
    };
    for (const branch of new Set(scope.targetBranches)) take(this.byBranch.get(branch));
    take(this.byCommit.get(scope.commitSha));
    for (const sha of this.latestFlaky(from, scope, inTimeOrder)) take(this.byCommit.get(sha));
    return [...picked.values()];
  }

  private latestFlaky(from: string, scope: DetectionScope, inTimeOrder: boolean): string[] {
    const last = this.all[this.all.length - 1];
    if (!inTimeOrder || (last && last.r.at > scope.until)) {
      return latestFlakyCommits(
        [...this.flakyCommits].flatMap((sha) => this.byCommit.get(sha)!.filter((e) => e.r.at >= from).map((e) => e.r)),
        scope.until,
        scope.flakyCommits,
      );
    }
    // In time order, a commit's flaky event is as late as its last usable result: the latest
    // events are the last distinct commits of `recent` that are still flaky since `from`.
    const found: string[] = [];
    const seen = new Set<string>();
    for (let i = this.recent.length - 1; i >= 0 && found.length < scope.flakyCommits; i--) {
      const sha = this.recent[i]!;
      if (seen.has(sha)) continue;
      seen.add(sha);
      const entries = this.byCommit.get(sha)?.filter((e) => e.r.at >= from && usable(e)) ?? [];
      if (flakyAmong(entries)) found.push(sha);
    }
    return found;
  }
}

function usable(e: Entry): boolean {
  return !e.r.ignoredForDetection && e.r.outcome !== 'skipped';
}

/** Whether these entries show both a failed and a passed attempt. */
function flakyAmong(entries: readonly Entry[]): boolean {
  return entries.some((e) => e.r.failedAttempts > 0) && entries.some((e) => e.r.passedAttempts > 0);
}

function lastOfEach(shas: string[]): string[] {
  const seen = new Set<string>();
  const kept: string[] = [];
  for (let i = shas.length - 1; i >= 0; i--) {
    if (seen.has(shas[i]!)) continue;
    seen.add(shas[i]!);
    kept.push(shas[i]!);
  }
  return kept.reverse();
}

function push(index: Map<string, Entry[]>, k: string, e: Entry): void {
  const list = index.get(k);
  if (list) list.push(e);
  else index.set(k, [e]);
}

function unlink(index: Map<string, Entry[]>, k: string, e: Entry): void {
  const list = index.get(k);
  if (!list) return;
  const rest = list[0] === e ? list.slice(1) : list.filter((x) => x !== e);
  if (rest.length === 0) index.delete(k);
  else index.set(k, rest);
}

function key(repoKey: string, id: string): string {
  return `${repoKey}#${id}`;
}

function copy<T>(value: T): T {
  return value === null ? value : structuredClone(value);
}

function cmp(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
