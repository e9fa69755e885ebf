import type { Org } from '../../src/domain/org.js';
import { AppHarness } from './app-harness.js';

/**
 * A failed stack on GitHub says it per member (docs/stacks.md, "When the unit fails"): the culprit
 * layer gets a failed status and its own comment with the failing tests; each layer above it a failed
 * status and one comment pointing at the culprit; the layers below land.
 */
let h: AppHarness;
let org: Org;

beforeEach(async () => {
  h = await AppHarness.start();
  org = await h.install();
  h.fake.permissions.set('maintainer', 'write');
  await h.createQueue(org, { concurrency: 3, mergeMethod: 'merge_commit', bisectionConcurrency: 1 });
});
afterEach(() => h.stop());

const FAILING = { testCaseId: 'pkg.layer3.ParserTest.parsesEmpty', name: 'ParserTest.parsesEmpty', knownFlaky: false, quarantined: false, firstFailureLine: 'expected [] but got null' };

/** CI fails every build holding #3, with its failing test uploaded first, and passes the others. */
async function runCi(): Promise<void> {
  const reported = new Set<string>();
  for (let round = 0; round < 10; round++) {
    const fresh = h.fake.branches('mergeq/main/').map((b) => h.fake.refs.get(b)!).filter((sha) => !reported.has(sha));
    if (fresh.length === 0) break;
    for (const sha of fresh) {
      reported.add(sha);
      const fails = h.fake.contentOf(sha).includes(3);
      if (fails) await h.engine.recordTestResults(h.repo, sha, [FAILING]);
      await h.ciStatus(sha, fails ? 'failure' : 'success');
    }
    await h.deliverGitHubEvents();
  }
}

const status = (pr: number) => h.fake.statuses.get(`head${pr}`)?.filter((s) => s.context === 'mergeq (main)').at(-1);

test.each([
  ['a native stack', (prs: number[]) => h.fake.openStack(prs)],
  ['a plain chain', (prs: number[]) => h.fake.openChain(prs)],
])('%s with a culprit at layer 3 of 5: 3 gets a failed status and its own comment with the failing test, 4 and 5 a failed status and one comment naming #3', async (_kind, open) => {
  open([1, 2, 3, 4, 5]);
  await h.deliverGitHubEvents();
  await h.comment(5, '/merge');
  await runCi();
  await h.advanceMinutes(1);

  expect(h.fake.merged).toEqual([1, 2]);
  expect(status(3)).toMatchObject({ state: 'failure' });
  const culprit = h.fake.statusComments(3);
  expect(culprit).toHaveLength(1);
  expect(culprit[0]!.body).toContain('culprit');
  expect(culprit[0]!.body).toContain('ParserTest.parsesEmpty');
  expect(culprit[0]!.body).toContain('but got null');
  for (const n of [4, 5]) {
    expect(status(n)).toMatchObject({ state: 'failure', description: expect.stringContaining('#3') });
    const comments = h.fake.statusComments(n);
    expect(comments).toHaveLength(1);
    expect(comments[0]!.body).toContain('#3');
    expect(comments[0]!.body).not.toContain('ParserTest.parsesEmpty');
  }
  for (const n of [1, 2]) expect(status(n)).toMatchObject({ state: 'success' });
});
