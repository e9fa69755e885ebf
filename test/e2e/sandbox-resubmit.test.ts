import { SandboxService } from './sandbox-service.js';

const REPO = { host: 'github.com', owner: 'acme', name: 'resubmit' };
const QUEUE = { repo: REPO, targetBranch: 'main' };
let svc: SandboxService;

beforeEach(async () => {
  svc = await SandboxService.start();
  await svc.ok('createQueue', { ...QUEUE, mode: 'single', concurrency: 1 });
});
afterEach(async () => {
  await svc.stop();
});

test('re-submitting a NOT_READY PR reads it again at once, not at the next 60 s poll', async () => {
  const n = (await svc.openPull(REPO, 'draft first', { bad: false, ciMinutes: 10 })).number;
  svc.sandbox.update(REPO, n, { draft: true });
  await svc.ok('submitPullRequest', { ...QUEUE, pr: { number: n } });
  await svc.settle();
  expect((await svc.ok('getSubmittedPullRequest', { ...QUEUE, pr: { number: n } })).body.state).toBe('NOT_READY');

  svc.sandbox.update(REPO, n, { draft: false });
  await svc.ok('submitPullRequest', { ...QUEUE, pr: { number: n } });
  await svc.settle();
  expect((await svc.ok('getSubmittedPullRequest', { ...QUEUE, pr: { number: n } })).body.state).toBe('TESTING');
});

test('a PR submitted before the sandbox opened it, submitted again once it is open, is answered with what the host says now', async () => {
  const early = await svc.ok('submitPullRequest', { ...QUEUE, pr: { number: 1 } });
  expect(early.body.readiness.note).toBe('the git host does not know pull request #1');
  await svc.settle();

  expect((await svc.openPull(REPO, 'Add a widget', { bad: false, ciMinutes: 10 })).number).toBe(1);
  const again = await svc.ok('submitPullRequest', { ...QUEUE, pr: { number: 1 } });
  expect(again.body.readiness).toMatchObject({ isOpen: true, note: null });
  expect(again.body.prTitle).toBe('Add a widget');
  await svc.settle();
  expect((await svc.ok('getSubmittedPullRequest', { ...QUEUE, pr: { number: 1 } })).body.state).toBe('TESTING');
});
