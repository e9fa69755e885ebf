import type { FlakySettings, TestCaseEvent, TestResult, TestUpload } from '../domain/flaky.js';
import type { TestCase } from '../domain/quarantine.js';
import { testCaseOutboxEvents } from '../events/test-case-events.js';
import type { MemoryOutbox } from './memory-outbox.js';
import type { FlakyTestStore, Store, TestCaseCounts, TestUploadWrite } from '../store/store.js';

type TestCaseTables = FlakyTestStore & Pick<Store, 'upsertTestCase' | 'getTestCase' | 'listQuarantinedTests' | 'listFlakyTests'>;

/** Flaky-test data in memory, for the simulation store; copies in and out, as a real adapter. */
export class MemoryFlakyTables implements TestCaseTables {
  private readonly uploads = new Map<string, TestUpload>();
  /**
   * Results by repository and test case, oldest first, with their insertion order. A result never
   * changes once stored, so they are frozen and handed out shared rather than copied: the detector
   * reads a watched test's whole history at every upload, and copying it made long simulations
   * quadratic in time.
   */
  private readonly results = new Map<string, { seq: number; r: Readonly<TestResult> }[]>();
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

  async commitTestUpload(w: TestUploadWrite): Promise<boolean> {
    const k = key(w.upload.repoKey, w.upload.uploadId);
    if (this.uploads.has(k)) return false;
    this.uploads.set(k, copy(w.upload));
    const floor = this.keptSince.get(w.upload.repoKey);
    if (floor === undefined || w.keepResultsSince > floor) this.keptSince.set(w.upload.repoKey, w.keepResultsSince);
    for (const r of copy(w.results)) {
      const k2 = key(r.repoKey, r.testCaseId);
      const list = this.results.get(k2) ?? [];
      let drop = 0;
      while (drop < list.length && list[drop]!.r.at < w.keepResultsSince) drop++;
      if (drop > 0) list.splice(0, drop);
      if (r.at < this.lastAt) this.inTimeOrder = false;
      else this.lastAt = r.at;
      list.push({ seq: this.resultSeq++, r: Object.freeze(r) });
      this.results.set(k2, list);
    }
    await this.writeTestCases(w.testCases, w.events);
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

  async writeTestCases(testCases: TestCase[], events: TestCaseEvent[]): Promise<void> {
    for (const tc of testCases) this.cases.set(key(tc.repoKey, tc.testCaseId), copy(tc));
    this.events.push(...copy(events));
    this.outbox?.insertEvents(testCaseOutboxEvents(events, testCases));
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
    const floor = this.keptSince.get(repoKey) ?? '';
    const from = floor > since ? floor : since;
    const matching = [...new Set(testCaseIds)].flatMap((id) => (this.results.get(key(repoKey, id)) ?? []).filter((x) => x.r.at >= from));
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

function key(repoKey: string, id: string): string {
  return `${repoKey}#${id}`;
}

function copy<T>(value: T): T {
  return value === null ? value : structuredClone(value);
}

function cmp(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
