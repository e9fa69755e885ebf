import type { Org } from '../../src/domain/org.js';
import { USAGE } from '../../src/github-app/command-parser.js';
import { AppHarness } from './app-harness.js';

let h: AppHarness;
let org: Org;

beforeEach(async () => {
  h = await AppHarness.start();
  org = await h.install();
  h.fake.permissions.set('maintainer', 'maintain');
  h.fake.permissions.set('visitor', 'read');
  h.fake.openPull(1);
});
afterEach(() => h.stop());

describe('installing the App', () => {
  test('creates the mergeq organization of the account, once', async () => {
    expect(org).toMatchObject({ slug: 'acme', owners: ['github.com/acme'] });
    await h.install();
    expect((await h.store.orgs.getOrgBySlug('acme'))?.id).toBe(org.id);
  });
});

describe('/merge', () => {
  beforeEach(() => h.createQueue(org));

  test('from a user with write access submits the PR to the queue of its base branch, acknowledged by a 👍', async () => {
    const commentId = await h.comment(1, 'Looks good.\n/merge');
    const pr = await h.pr(org, 1);
    expect(pr).toMatchObject({ isCurrentlySubmittedToQueue: true, prSha: 'head1', priorityName: 'medium', noBatch: false });
    // The 👍 is what a person hears first; no reply, no comment.
    expect(h.fake.reactions).toEqual([{ commentId, content: '+1' }]);
    expect(h.fake.replies()).toEqual([]);
    expect(h.fake.statusComments(1)).toEqual([]);
  });

  test('reads the pull request from GitHub once: the handler passes what it read on to the queue', async () => {
    await h.comment(1, '/merge');
    expect(await h.pr(org, 1)).toMatchObject({ isCurrentlySubmittedToQueue: true, prSha: 'head1' });
    const prReads = h.fake.requests.filter((r) => r.method === 'GET' && r.path === '/pulls/1');
    expect(prReads).toHaveLength(1);
  });

  test('with the status check off, a submission is acknowledged with a 👍', async () => {
    await h.queueService.updateQueue(org, { repo: h.repo, targetBranch: 'main', statusCheckEnabled: false });
    const commentId = await h.comment(1, '/merge');
    expect(await h.pr(org, 1)).toMatchObject({ isCurrentlySubmittedToQueue: true });
    expect(h.fake.reactions).toEqual([{ commentId, content: '+1' }]);
  });

  test('takes a priority and --no-batch', async () => {
    await h.comment(1, '/merge -p high --no-batch');
    expect(await h.pr(org, 1)).toMatchObject({ priorityName: 'high', noBatch: true });
  });

  test('from a user without write access is refused with a reply saying why, and submits nothing', async () => {
    const commentId = await h.comment(1, '/merge', 'visitor');
    await expect(h.pr(org, 1)).rejects.toMatchObject({ status: 404 });
    expect(h.fake.reactions).toEqual([{ commentId, content: 'confused' }]);
    expect(h.fake.replies()).toEqual([{ issue: 1, body: '@visitor only users with write access to acme/widgets can use /merge.' }]);
  });

  test('an unknown sub-command gets the usage line and changes nothing', async () => {
    await h.comment(1, '/merge now');
    await expect(h.pr(org, 1)).rejects.toMatchObject({ status: 404 });
    expect(h.fake.replies()).toEqual([{ issue: 1, body: `\`now\` is not a /merge command. ${USAGE}` }]);
  });

  test('cancel and restart act on the PR in the queue; status replies with its state and position', async () => {
    await h.comment(1, '/merge');
    await h.comment(1, '/merge status');
    expect(h.fake.replies()).toHaveLength(1);
    expect(h.fake.replies()[0]!.body).toMatch(/^\*\*(NOT_READY|PENDING|TESTING)\*\*.*\(priority medium\)/);

    await h.comment(1, '/merge cancel');
    expect(await h.pr(org, 1)).toMatchObject({ state: 'CANCELLED', reason: { code: 'cancelled_by_user' } });
    await h.comment(1, '/merge restart');
    expect(h.fake.replies().at(-1)!.body).toBe('pull request #1 is CANCELLED; only a pull request in the queue can be restarted');
  });

  test('/merge status says what holds the queue: "frozen until …: reason"', async () => {
    await h.comment(1, '/merge');
    await h.queueService.freezes.freeze(org, { repo: h.repo, targetBranch: 'main', reason: 'release 4.2', endsAt: '2099-01-01T00:00:00Z' }, 'ops');
    await h.comment(1, '/merge status');
    expect(h.fake.replies().at(-1)!.body).toContain('The queue merges nothing now: frozen until 2099-01-01 00:00 UTC: release 4.2.');
  });

  test('a redelivered webhook is handled once', async () => {
    await h.comment(1, '/merge status', 'maintainer', { delivery: 'same' });
    await h.comment(1, '/merge status', 'maintainer', { delivery: 'same' });
    expect(h.fake.replies()).toHaveLength(1);
  });

  test('comments on issues, and comments without a command, are not for the queue', async () => {
    await h.comment(1, '/merge', 'maintainer', { onIssue: true });
    await h.comment(1, 'merge when ready please');
    expect(h.fake.reactions).toEqual([]);
    await expect(h.pr(org, 1)).rejects.toMatchObject({ status: 404 });
  });
});

test('/merge on a branch without a queue says so, naming the branch', async () => {
  await h.comment(1, '/merge');
  expect(h.fake.replies()).toEqual([
    { issue: 1, body: 'There is no merge queue for `main` in this repository. Create one with the API (`POST /v1/createQueue`).' },
  ]);
});

test('with commandsEnabled off, the queue ignores commands and says so', async () => {
  await h.createQueue(org, { commandsEnabled: false });
  await h.comment(1, '/merge');
  await expect(h.pr(org, 1)).rejects.toMatchObject({ status: 404 });
  expect(h.fake.replies()[0]!.body).toBe('Comment commands are turned off for the merge queue of `main`.');
});
