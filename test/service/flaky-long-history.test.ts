import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DEFAULT_FLAKY_SETTINGS } from '../../src/domain/flaky.js';
import type { Org } from '../../src/domain/org.js';
import { repoKey } from '../../src/domain/repo.js';
import { evaluate } from '../../src/flaky/detection-rules.js';
import { RESULT_RETENTION_DAYS, FlakyTestService } from '../../src/service/flaky/flaky-test-service.js';
import { openSqliteStore, SQLITE_FILE } from '../../src/store/open.js';
import type { Store } from '../../src/store/store.js';

/**
 * The detector on a long history (on a SQLite file): its verdicts are those of the rules over the
 * whole history, while what it reads at each upload does not grow with the passes.
 */

const REPO = { host: 'github.com', owner: 'acme', name: 'widgets' };
const KEY = repoKey(REPO);
const ORG: Org = { id: 'o1', slug: 'acme', owners: ['github.com/acme'], createdAt: '2026-11-01T00:00:00.000Z' };
const DAY = 24 * 60 * 60 * 1000;
const UPLOADS = 1200;

let dir: string;
let store: Store;
let rowsRead: number[];
let uploading = false;
let now: Date;
let service: FlakyTestService;

beforeEach(async () => {
  dir = mkdtempSync(join(tmpdir(), 'mergeq-flaky-history-'));
  const real = await openSqliteStore(join(dir, SQLITE_FILE));
  rowsRead = [];
  // Counts the results the service reads during each upload; everything else goes to the real store.
  store = {
    ...real,
    tests: new Proxy(real.tests, {
      get(target, prop, receiver) {
        if (prop !== 'detectionResults' && prop !== 'testResults') return Reflect.get(target, prop, receiver);
        return async (...args: unknown[]) => {
          const rows = (await (Reflect.get(target, prop, receiver) as (...a: unknown[]) => Promise<unknown[]>).apply(target, args)) as unknown[];
          if (uploading) rowsRead[rowsRead.length - 1]! += rows.length;
          return rows;
        };
      },
    }),
  };
  now = new Date('2026-11-01T00:00:00.000Z');
  service = new FlakyTestService({ store, clock: { now: () => now } });
});
afterEach(async () => {
  await store.close();
  rmSync(dir, { recursive: true, force: true });
});

type Attempts = ('passed' | 'failed')[];

function junit(tests: Record<string, Attempts>): string {
  const cases = Object.entries(tests).flatMap(([name, attempts]) =>
    attempts.map((a) => (a === 'passed' ? `<testcase classname="app" name="${name}"/>` : `<testcase classname="app" name="${name}"><failure/></testcase>`)),
  );
  return `<testsuites><testsuite name="app">${cases.join('')}</testsuite></testsuites>`;
}

async function upload(i: number, commitSha: string, branch: string, tests: Record<string, Attempts>) {
  now = new Date(now.getTime() + 60_000);
  rowsRead.push(0);
  uploading = true;
  try {
    return await service.upload(ORG, { repo: REPO, commitSha, branch, uploadId: `u${i}`, junitXml: [junit(tests)] });
  } finally {
    uploading = false;
  }
}

async function statusOf(name: string) {
  const cases = await store.tests.testCasesToWatch(KEY, '0');
  return cases.find((tc) => tc.name === name)?.status ?? 'healthy';
}

async function rulesOverWholeHistory(name: string) {
  const all = await store.tests.testCasesToWatch(KEY, '0');
  const tc = all.find((t) => t.name === name);
  if (!tc) return 'healthy';
  const since = new Date(now.getTime() - RESULT_RETENTION_DAYS * DAY).toISOString();
  return evaluate(await store.tests.testResults(KEY, [tc.testCaseId], since), DEFAULT_FLAKY_SETTINGS, now).status;
}

test('over 1200 uploads: the statuses are the rules over the whole history, and each upload reads only what they depend on', async () => {
  for (let i = 0; i < UPLOADS; i++) {
    const onMain = i % 100 === 0;
    const sha = `c${i}`;
    const tests: Record<string, Attempts> = {
      steady: ['passed'],
      // Fails on three commits, each passing when rerun: flaky from the first, and stays flaky.
      flaky: [150, 550, 950].includes(i) ? ['failed'] : ['passed'],
      // Broken by one PR's commit (never rerun), then passing for good.
      'broken-once': i === 50 ? ['failed'] : ['passed'],
      // Fails every main-branch run from upload 700 on: five in a row by upload 1100, so broken.
      'main-only': onMain && i >= 700 ? ['failed'] : ['passed'],
    };
    await upload(i, sha, onMain ? 'main' : `mergeq/main/run-${i}`, tests);
    if ([150, 550, 950].includes(i)) await upload(i + UPLOADS, sha, `mergeq/main/run-${i}`, { ...tests, flaky: ['passed'] });
    if (i % 100 === 99 || i === UPLOADS - 1) {
      for (const name of ['flaky', 'broken-once', 'main-only']) expect(await statusOf(name)).toBe(await rulesOverWholeHistory(name));
    }
  }
  expect(await statusOf('flaky')).toBe('flaky');
  expect(await statusOf('broken-once')).toBe('healthy');
  expect(await statusOf('main-only')).toBe('broken');
  expect((await store.tests.testResults(KEY, (await store.tests.testCasesToWatch(KEY, '0')).map((t) => t.testCaseId), '0')).length).toBeGreaterThan(3 * UPLOADS);

  // Per upload and test evaluated: the latest commit where it failed and passed (2 results), the
  // main-branch runs and the upload's own — never the thousand passes of other commits.
  const mainRuns = UPLOADS / 100;
  const perTest = 2 + mainRuns + 1;
  // Only an upload that changes a status reads that test's whole history, for the evidence: flaky at
  // 150, broken at 1100.
  expect(rowsRead).toHaveLength(UPLOADS + 3);
  expect(rowsRead.filter((n) => n > 3 * perTest)).toHaveLength(2);

  // Eight days without a flaky event: healthy again, with the evidence the rules give over the whole history.
  now = new Date(now.getTime() + 8 * DAY);
  await upload(3 * UPLOADS, 'later', 'mergeq/main/run-later', { steady: ['passed'], flaky: ['passed'], 'broken-once': ['passed'], 'main-only': ['passed'] });
  const flaky = (await store.tests.testCasesToWatch(KEY, '0')).find((t) => t.name === 'flaky')!;
  expect(flaky.status).toBe('healthy');
  const since = new Date(now.getTime() - RESULT_RETENTION_DAYS * DAY).toISOString();
  const whole = evaluate(await store.tests.testResults(KEY, [flaky.testCaseId], since), DEFAULT_FLAKY_SETTINGS, now);
  expect((await store.tests.testCaseEvents(KEY, flaky.testCaseId)).find((e) => e.kind === 'status' && e.to === 'healthy')).toMatchObject({ kind: 'status', from: 'flaky', to: 'healthy', evidence: whole.evidence });
  expect(whole.evidence.uploads).toEqual([`u${3 * UPLOADS}`]);
});
