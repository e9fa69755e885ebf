import type { Org } from '../../src/domain/org.js';
import { AppHarness } from './app-harness.js';

/**
 * Every PR that was told anything is told how it ended (github.md, "Reports"): a status still on its
 * way to GitHub when the PR moves on is followed by the final one, restarts included.
 */

let h: AppHarness;
let org: Org;

afterEach(() => h.stop());

beforeEach(async () => {
  h = await AppHarness.start();
  h.fake.now = () => h.time.nowMillis();
  h.fake.permissions.set('maintainer', 'write');
  org = await h.install();
});

/** Lets the engine work (due virtual timers fire, real I/O runs) until `done` holds. */
async function until(done: () => boolean, what: string): Promise<void> {
  for (let i = 0; i < 400 && !done(); i++) {
    h.time.fireDue();
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
  if (!done()) throw new Error(`never happened: ${what}`);
}

function mergeqStatus(sha: string): { state: string; description: string } | undefined {
  return h.fake.statuses.get(sha)?.find((s) => s.context === 'mergeq (main)') as { state: string; description: string } | undefined;
}

test('a pending status held in flight until the PR has merged is followed by the final status', async () => {
  await h.createQueue(org, { mergeMethod: 'merge_commit' });
  h.fake.openPull(1);
  const held = h.fake.held.hold('POST', /^\/statuses\/head1$/);
  const received = h.receive('issue_comment', h.commentPayload(1, '/merge'));
  await held.reached;
  await received;
  await until(() => h.fake.branches('mergeq/').length > 0, 'a test branch');
  const tested = h.fake.refs.get(h.fake.branches('mergeq/')[0]!)!;
  const ci = h.receive('status', { sha: tested, context: 'ci', state: 'success', target_url: 'https://ci.example.com/1', description: 'ok', branches: [] });
  await ci;
  await until(() => h.fake.merged.includes(1), 'PR 1 merged');
  expect(mergeqStatus('head1')).toBeUndefined(); // the pending one is still on its way

  held.release();
  await until(() => mergeqStatus('head1')?.state === 'success', 'the final status');
  await h.engine.whenIdle();
  expect(mergeqStatus('head1')).toMatchObject({ state: 'success', description: 'Merged' });
});
