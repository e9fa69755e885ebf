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
  /** The one check run `mergeq config` on the commit, passed or failed. */
  const configCheck = (sha: string) => {
    const runs = h.fake.checks.runs.filter((r) => r.headSha === sha && r.name === 'mergeq config');
    expect(runs).toHaveLength(1);
    return runs[0]!;
  };

  it('a broken file is a failing check run on its commit with an annotation on each offending line, and changes nothing', async () => {
    await h.createQueue(org, { concurrency: 2 });
    const head = await pushFile(['queues:', '  - branch: main', '    batch: true', '    concurency: 4', '    mergeWindows:', '      timeZone: Europe/Paris', '      windows:', '        - days: [mon]', '          start: "09:00"', '          ends: "17:00"', '  - pattern: release/*', ''].join('\n'));

    const check = configCheck(head);
    expect(check).toMatchObject({ status: 'completed', conclusion: 'failure', output: { title: `${FILE} line 4: queues[0].concurency: unknown setting, did you mean concurrency? (and 2 more)` } });
    const annotation = (line: number, message: string | ReturnType<typeof expect.stringMatching>) => ({ path: FILE, start_line: line, end_line: line, annotation_level: 'failure', message });
    expect(check.output.annotations).toEqual([
      annotation(4, 'queues[0].concurency: unknown setting, did you mean concurrency?'),
      annotation(10, 'queues[0].mergeWindows.windows[0].ends: unknown key, did you mean end?'),
      annotation(8, expect.stringMatching(/^queues\[0\]\.mergeWindows\.windows\[0\]\.end: /)),
    ]);
    expect(configStatus(head)).toBeUndefined();
    const main = await queue('main');
    expect(main).toMatchObject({ concurrency: 2, batch: false, settingsSource: 'api' });
    expect(await h.store.templates.listTemplates({})).toEqual([]);
  });

  it('a valid file creates and updates queues and templates; updateQueue on a queue it manages is 409 naming the file', async () => {
    await h.createQueue(org, { concurrency: 2, batch: true });
    const head = await pushFile(['queues:', '  - branch: main', '    concurrency: 3', '  - branch: develop', '    mergeMethod: rebase', '  - pattern: release/*', '    flakeRetries: 2', ''].join('\n'));

    expect(configCheck(head)).toMatchObject({ conclusion: 'success', output: { title: `${FILE} applied: 1 queue(s) created, 1 updated, 1 pattern template(s)`, annotations: [] } });
    // The summary lists what changed.
    expect(configCheck(head).output.summary.split('\n')).toEqual(['What changed:', '', '- template release/*: created', '- queue main: concurrency 2 → 3', '- queue main: batch true → false', '- queue main: bisectionConcurrency 2 → 3', '- queue develop: created']);
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

    expect(configCheck(next)).toMatchObject({ conclusion: 'success', output: { title: `${FILE} applied: 0 queue(s) created, 1 updated, 0 pattern template(s), 1 no longer managed` } });
    expect(configCheck(next).output.summary).toContain('- queue develop: no longer managed by the file');
    expect(await queue('develop')).toMatchObject({ settingsSource: 'api' });
    await expect(h.queueService.updateQueue(org, { repo: h.repo, targetBranch: 'develop', concurrency: 2 })).resolves.toMatchObject({ concurrency: 2 });

    const removed = await pushFile(null);
    expect(configCheck(removed)).toMatchObject({ conclusion: 'success' });
    expect(await queue('main')).toMatchObject({ concurrency: 4, settingsSource: 'api' });
  });

  it('without the checks permission (GitHub answers 403), the outcome is the commit status mergeq/config, as before', async () => {
    h.fake.checks.writable = false;
    const head = await pushFile(['queues:', '  - branch: main', '    concurency: 4', ''].join('\n'));
    expect(h.fake.checks.runs).toEqual([]);
    expect(configStatus(head)).toMatchObject({ state: 'failure', description: `${FILE} line 3: queues[0].concurency: unknown setting, did you mean concurrency?` });
    const valid = await pushFile(['queues:', '  - branch: main', '    concurrency: 4', ''].join('\n'));
    expect(configStatus(valid)).toMatchObject({ state: 'success', description: `${FILE} applied: 1 queue(s) created, 0 updated, 0 pattern template(s)` });
  });

  it('a push to the default branch that does not touch the file reads nothing and writes no status', async () => {
    const before = h.fake.requests.length;
    const head = h.fake.pushOutside(++change);
    await h.deliver('push', { ref: 'refs/heads/main', before: 'base0', after: head, deleted: false, repository: { ...h.fake.repository, default_branch: 'main' }, commits: [{ id: head, added: ['src/a.ts'], modified: [], removed: [] }] });
    expect(h.fake.requests.slice(before).filter((r) => r.path.startsWith('/contents'))).toEqual([]);
    expect(configStatus(head)).toBeUndefined();
    expect(h.fake.checks.runs).toEqual([]);
  });
});

describe('.github/mergeq.yml at installation', () => {
  it('installing the App applies the file of the default branch head, with one check run', async () => {
    const h = await AppHarness.start();
    try {
      h.fake.files.put('base0', FILE, 'queues:\n  - pattern: "release/**"\n    concurrency: 2\n');
      const org = await h.install();
      expect(h.fake.checks.runs).toMatchObject([{ name: 'mergeq config', headSha: 'base0', conclusion: 'success' }]);
      expect(await h.queueService.getQueue(org, { repo: h.repo, targetBranch: 'main' }).catch((e: ServiceError) => e.code)).toBe('queue_not_found');
      expect(await h.store.templates.listTemplates({ orgId: org.id })).toMatchObject([{ pattern: 'release/**', settings: { concurrency: 2 } }]);
    } finally {
      await h.stop();
    }
  });
});
