import { afterEach, beforeEach, describe, expect, it } from '@jest/globals';
import type { Org } from '../../src/domain/org.js';
import { ServiceError } from '../../src/service/errors.js';
import { AppHarness } from './app-harness.js';

const FILE = '.github/mergeq.yml';

/**
 * `.github/mergeq.yml` end to end: the App's push handler against the stateful fake GitHub, the real
 * store, queue service and engine. One commit status per push that changes the file.
 */
describe('.github/mergeq.yml through the GitHub App', () => {
  let h: AppHarness;
  let org: Org;
  let change = 0;
  beforeEach(async () => {
    h = await AppHarness.start();
    org = await h.install();
  });
  afterEach(() => h.stop());

  /** Someone pushes a commit to main that sets the file (null: removes it); returns the commit. */
  async function pushFile(text: string | null): Promise<string> {
    const before = h.fake.refs.get('main')!;
    const head = h.fake.pushOutside(++change);
    h.fake.files.put(head, FILE, text);
    await h.deliver('push', {
      ref: 'refs/heads/main',
      before,
      after: head,
      created: false,
      deleted: false,
      forced: false,
      repository: { ...h.fake.repository, default_branch: 'main' },
      commits: [{ id: head, added: [], modified: text === null ? [] : [FILE], removed: text === null ? [FILE] : [] }],
      sender: { login: 'dev', type: 'User' },
    });
    return head;
  }

  const queue = (branch: string) => h.queueService.getQueue(org, { repo: h.repo, targetBranch: branch });
  const configStatus = (sha: string) => h.fake.statuses.get(sha)?.find((s) => s.context === 'mergeq/config');

  it('a broken file is a failing status on its commit naming the line, and changes nothing', async () => {
    await h.createQueue(org, { concurrency: 2 });
    const statusesBefore = h.fake.writes.statuses;
    const head = await pushFile(['queues:', '  - branch: main', '    batch: true', '    concurency: 4', '  - pattern: release/*', ''].join('\n'));

    expect(configStatus(head)).toMatchObject({ state: 'failure', description: `${FILE} line 4: queues[0].concurency: unknown setting, did you mean concurrency?` });
    expect(h.fake.writes.statuses - statusesBefore).toBe(1);
    const main = await queue('main');
    expect(main).toMatchObject({ concurrency: 2, batch: false, settingsSource: 'api' });
    expect(await h.store.templates.listTemplates({})).toEqual([]);
  });

  it('a valid file creates and updates queues and templates; updateQueue on a queue it manages is 409 naming the file', async () => {
    await h.createQueue(org, { concurrency: 2, batch: true });
    const head = await pushFile(['queues:', '  - branch: main', '    concurrency: 3', '  - branch: develop', '    mergeMethod: rebase', '  - pattern: release/*', '    flakeRetries: 2', ''].join('\n'));

    expect(configStatus(head)).toMatchObject({ state: 'success', description: `${FILE} applied: 1 queue(s) created, 1 updated, 1 pattern template(s)` });
    // Exactly the file's settings: `batch`, which it leaves out, is back to its default.
    expect(await queue('main')).toMatchObject({ concurrency: 3, batch: false, settingsSource: `${FILE}@${head}` });
    expect(await queue('develop')).toMatchObject({ mergeMethod: 'rebase', concurrency: 1, settingsSource: `${FILE}@${head}`, createdFrom: null });
    expect(await h.store.templates.listTemplates({})).toMatchObject([{ pattern: 'release/*', settings: { flakeRetries: 2 }, settingsSource: `${FILE}@${head}` }]);

    const refused = h.queueService.updateQueue(org, { repo: h.repo, targetBranch: 'main', concurrency: 5 });
    await expect(refused).rejects.toBeInstanceOf(ServiceError);
    await expect(refused).rejects.toMatchObject({ status: 409, code: 'queue_managed_by_file', detail: expect.stringContaining(`kept in ${FILE} (applied from commit ${head})`) });
    // Pausing is not a setting: a managed queue can still be paused through the API.
    await expect(h.queueService.updateQueue(org, { repo: h.repo, targetBranch: 'main', state: 'paused' })).resolves.toMatchObject({ state: 'paused', concurrency: 3 });
  });

  it('a queue removed from the file is no longer managed and stays; removing the file releases the rest', async () => {
    await pushFile(['queues:', '  - branch: main', '    concurrency: 3', '  - branch: develop', ''].join('\n'));
    const next = await pushFile(['queues:', '  - branch: main', '    concurrency: 4', ''].join('\n'));

    expect(configStatus(next)).toMatchObject({ state: 'success', description: `${FILE} applied: 0 queue(s) created, 1 updated, 0 pattern template(s), 1 no longer managed` });
    expect(await queue('develop')).toMatchObject({ settingsSource: 'api' });
    await expect(h.queueService.updateQueue(org, { repo: h.repo, targetBranch: 'develop', concurrency: 2 })).resolves.toMatchObject({ concurrency: 2 });

    const removed = await pushFile(null);
    expect(configStatus(removed)).toMatchObject({ state: 'success' });
    expect(await queue('main')).toMatchObject({ concurrency: 4, settingsSource: 'api' });
  });

  it('a push to the default branch that does not touch the file reads nothing and writes no status', async () => {
    const before = h.fake.requests.length;
    const head = h.fake.pushOutside(++change);
    await h.deliver('push', { ref: 'refs/heads/main', before: 'base0', after: head, deleted: false, repository: { ...h.fake.repository, default_branch: 'main' }, commits: [{ id: head, added: ['src/a.ts'], modified: [], removed: [] }] });
    expect(h.fake.requests.slice(before).filter((r) => r.path.startsWith('/contents'))).toEqual([]);
    expect(configStatus(head)).toBeUndefined();
  });
});

describe('.github/mergeq.yml at installation', () => {
  it('installing the App applies the file of the default branch head, with one status', async () => {
    const h = await AppHarness.start();
    try {
      h.fake.files.put('base0', FILE, 'queues:\n  - pattern: "release/**"\n    concurrency: 2\n');
      const org = await h.install();
      expect(h.fake.statuses.get('base0')).toMatchObject([{ context: 'mergeq/config', state: 'success' }]);
      expect(await h.queueService.getQueue(org, { repo: h.repo, targetBranch: 'main' }).catch((e: ServiceError) => e.code)).toBe('queue_not_found');
      expect(await h.store.templates.listTemplates({ orgId: org.id })).toMatchObject([{ pattern: 'release/**', settings: { concurrency: 2 } }]);
    } finally {
      await h.stop();
    }
  });
});
