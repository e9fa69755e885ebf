import request from 'supertest';
import { parseSamples, valueOf } from '../metrics/exposition.js';
import { SandboxService } from './sandbox-service.js';

/**
 * A plain chain in the sandbox, through the REST API as a user drives it: #1 on main, #2 on #1's
 * branch, #3 on #2's. Submitting the top with `stack: {below: true}` queues the three as one unit:
 * one CI run, and every member merged onto main (the upper ones retargeted to main as they land).
 */
const REPO = { host: 'github.com', owner: 'acme', name: 'stacks' };
const QUEUE = { repo: REPO, targetBranch: 'main' };
let svc: SandboxService;

/** The stack metrics of getMergeQueueMetrics: stacks landed, their members landed, the CI runs that tested them. */
async function stackMetrics(): Promise<number[]> {
  const res = await svc.metrics(REPO);
  expect(res.status).toBe(200);
  const samples = parseSamples(res.text);
  const labels = { repo: 'acme/stacks', branch: 'main', queue_type: 'main' };
  return ['mq_stacks_landed_1h_total', 'mq_stack_members_landed_1h_total', 'mq_stack_ci_runs_1h_total'].map((name) => valueOf(samples, name, labels) ?? NaN);
}

beforeEach(async () => {
  svc = await SandboxService.start();
  await svc.ok('createQueue', { ...QUEUE, concurrency: 2 });
});
afterEach(async () => {
  await svc.stop();
});

async function chain(bad: number | null = null): Promise<number[]> {
  const prs: number[] = [];
  for (let i = 0; i < 3; i++) {
    const stackOn = prs.at(-1);
    prs.push((await svc.openPull(REPO, `layer ${i + 1}`, { bad: bad === i + 1, ciMinutes: 10, ...(stackOn ? { stackOn } : {}) })).number);
  }
  return prs;
}

test('the top of a 3-member chain, submitted with the PRs below, lands the whole chain with one CI run', async () => {
  const prs = await chain();
  const submitted = await svc.ok('submitPullRequest', { ...QUEUE, pr: { number: prs[2] }, stack: { below: true } });
  expect(submitted.body.prNumber).toBe(prs[2]);
  await svc.settle();
  const queue = await svc.ok('getQueue', QUEUE);
  expect(queue.body.enqueuedPullRequests.map((p: { prNumber: number }) => p.prNumber)).toEqual(prs);
  expect(queue.body.enqueuedPullRequests.map((p: { stack: unknown }) => p.stack)).toEqual(
    prs.map((_, i) => ({ id: `chain:${prs[0]}`, number: null, kind: 'chain', position: i + 1, size: 3, members: prs })),
  );
  const middle = await svc.ok('getSubmittedPullRequest', { ...QUEUE, pr: { number: prs[1] } });
  expect(middle.body.stack).toEqual({ id: `chain:${prs[0]}`, number: null, kind: 'chain', position: 2, size: 3, members: prs });
  expect(svc.sandbox.stats.testBranchesCreated).toBe(1);

  await svc.advanceMinutes(12);
  for (const n of prs) expect((await svc.ok('getSubmittedPullRequest', { ...QUEUE, pr: { number: n } })).body.state).toBe('MERGED');
  expect(svc.sandbox.mergedInOrder(REPO)).toEqual(prs);
  for (const n of prs) expect(svc.sandbox.pullRequest(REPO, n)!.baseBranch).toBe('main');
  expect(svc.sandbox.stats.testBranchesCreated).toBe(1);
  // One stack landed, three members, one CI run: one run per landed stack.
  expect(await stackMetrics()).toEqual([1, 3, 1]);
});

test('submitting layer 2 of 3 queues only layers 1 and 2', async () => {
  const prs = await chain();
  await svc.ok('submitPullRequest', { ...QUEUE, pr: { number: prs[1] }, stack: { below: true } });
  await svc.settle();
  const queue = await svc.ok('getQueue', QUEUE);
  expect(queue.body.enqueuedPullRequests.map((p: { prNumber: number }) => p.prNumber)).toEqual(prs.slice(0, 2));
});

test('a broken middle layer: the bottom lands, the middle fails with its tests, the top leaves naming it', async () => {
  await svc.ok('updateQueue', { ...QUEUE, flakeRetries: 0 });
  const prs = await chain(2);
  await svc.ok('submitPullRequest', { ...QUEUE, pr: { number: prs[2] }, stack: { below: true } });
  await svc.advanceMinutes(40);
  const states = [];
  for (const n of prs) states.push((await svc.ok('getSubmittedPullRequest', { ...QUEUE, pr: { number: n } })).body);
  expect(states.map((s) => s.state)).toEqual(['MERGED', 'FAILED', 'FAILED']);
  expect(states[1].reason.code).toBe('tests_failed');
  expect(states[2].reason.code).toBe('stack_member_failed');
  expect(states[2].reason.message).toContain(`#${prs[1]}`);
  // Not the top layer's fault: it is a bystander of the layer below, which is the culprit.
  expect(states[1].verdict.code).toBe('culprit');
  expect(states[2].verdict.code).toBe('bystander');
  expect(svc.sandbox.mergedInOrder(REPO)).toEqual([prs[0]]);
  // The bottom landed; every run the stack took (the unit's, then bisection's) is counted against it.
  expect(await stackMetrics()).toEqual([1, 1, svc.sandbox.stats.testBranchesCreated]);
  expect(svc.sandbox.stats.testBranchesCreated).toBeGreaterThan(1);
});

test('a stack named by its PRs is refused, naming the field, when it leaves out the submitted PR', async () => {
  const prs = await chain();
  const res = await svc.api('submitPullRequest', { ...QUEUE, pr: { number: prs[2] }, stack: { prs: [prs[0], prs[1]] } });
  expect(res.status).toBe(400);
  expect(res.body.errors).toEqual([{ path: 'stack.prs', message: expect.stringContaining(`#${prs[2]}`) }]);
  expect((await svc.ok('getQueue', QUEUE)).body.enqueuedPullRequests).toEqual([]);
});

test('parallel mode: a chain lands with one CI run, and a PR on disjoint targets runs beside it and merges first', async () => {
  const repo = { ...REPO, name: 'stacks-parallel' };
  const queue = { repo, targetBranch: 'main' };
  await svc.ok('createQueue', { ...queue, mode: 'parallel', concurrency: 4 });
  const prs: { number: number; headSha: string }[] = [];
  for (let i = 0; i < 3; i++) {
    const stackOn = prs.at(-1)?.number;
    prs.push(await svc.openPull(repo, `layer ${i + 1}`, { bad: false, ciMinutes: 30, ...(stackOn ? { stackOn } : {}) }));
  }
  const other = await svc.openPull(repo, 'docs fix', { bad: false, ciMinutes: 10 });
  await svc.ok('submitPullRequest', { ...queue, pr: { number: prs[2]!.number }, stack: { below: true } });
  await svc.ok('submitPullRequest', { ...queue, pr: { number: other.number } });
  const targets: [{ number: number; headSha: string }, string[]][] = [
    [prs[0]!, ['//core:lib']],
    [prs[1]!, ['//core:api']],
    [prs[2]!, ['//web:app']],
    [other, ['//docs:site']],
  ];
  for (const [pr, names] of targets) await svc.ok('setImpactedTargets', { ...queue, pr: { number: pr.number, sha: pr.headSha }, impactedTargets: names });
  await svc.settle();
  const runs = (await svc.ok('getMergeQueueTestingDetails', queue)).body.testRuns as { testedPullRequests: { prNumber: number }[] }[];
  expect(runs.map((r) => r.testedPullRequests.map((p) => p.prNumber)).sort((a, b) => a.length - b.length)).toEqual([[other.number], prs.map((p) => p.number)]);

  await svc.advanceMinutes(12);
  expect(svc.sandbox.mergedInOrder(repo)).toEqual([other.number]);
  await svc.advanceMinutes(25);
  expect(svc.sandbox.mergedInOrder(repo)).toEqual([other.number, ...prs.map((p) => p.number)]);
  expect(svc.sandbox.stats.testBranchesCreated).toBe(2);
});

test('a layer named by bisection on a flake is no culprit: its rerun passes and the whole chain lands', async () => {
  const repo = { ...REPO, name: 'stacks-flaky' };
  const queue = { repo, targetBranch: 'main' };
  // A flaky test fails the repository's first two CI runs (the unit's run and its first prefix), then passes.
  const tests = { repo, steadyTests: 3, flakyTests: [{ name: 'flaky test', rate: 0, script: [['failed', 'failed'], ['failed', 'failed']] }] };
  expect((await request(svc.app).post('/sandbox/tests').set('x-api-token', svc.token).send(tests)).status).toBe(200);
  await svc.ok('createQueue', { ...queue, concurrency: 2, flakeRetries: 1, bisectionConcurrency: 1, skipRetryOnRealFailure: false });
  const prs: number[] = [];
  for (let i = 0; i < 3; i++) {
    const stackOn = prs.at(-1);
    prs.push((await svc.openPull(repo, `layer ${i + 1}`, { bad: false, ciMinutes: 10, ...(stackOn ? { stackOn } : {}) })).number);
  }
  await svc.ok('submitPullRequest', { ...queue, pr: { number: prs[2] }, stack: { below: true } });
  let waited = false;
  for (let minute = 0; minute < 120 && svc.sandbox.mergedInOrder(repo).length < 3; minute++) {
    await svc.advanceMinutes(1);
    const top = (await svc.ok('getSubmittedPullRequest', { ...queue, pr: { number: prs[2] } })).body;
    if (top.state === 'NOT_READY' && /waiting for stack member/.test(top.reason.message)) waited = true;
  }
  expect(waited).toBe(true);
  expect(svc.sandbox.mergedInOrder(repo)).toEqual(prs);
  for (const n of prs) expect((await svc.ok('getSubmittedPullRequest', { ...queue, pr: { number: n } })).body.state).toBe('MERGED');
});
