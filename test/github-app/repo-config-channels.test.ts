import { afterEach, beforeEach, describe, expect, it } from '@jest/globals';
import type { Org } from '../../src/domain/org.js';
import { WebhookService } from '../../src/service/webhooks/webhook-service.js';
import { AppHarness } from './app-harness.js';

const FILE = '.github/mergeq.yml';

/**
 * The `channels` of `.github/mergeq.yml` through the App (docs/notifications.md): chat channels are
 * registered, with their secret URLs, through the API; the file names them and sets their rules for
 * this repository's events. A name that is no channel fails the `mergeq config` check run with an
 * annotation on its line, and nothing of the file is applied.
 */
describe('chat channels in .github/mergeq.yml', () => {
  let h: AppHarness;
  let org: Org;
  let webhooks: WebhookService;
  let change = 0;
  beforeEach(async () => {
    h = await AppHarness.start();
    org = await h.install();
    webhooks = new WebhookService({ store: h.store, clock: h.time });
  });
  afterEach(() => h.stop());

  async function pushFile(lines: string[] | null): Promise<string> {
    const before = h.fake.refs.get('main')!;
    const head = h.fake.pushOutside(++change);
    h.fake.files.put(head, FILE, lines && [...lines, ''].join('\n'));
    await h.deliver('push', {
      ref: 'refs/heads/main',
      before,
      after: head,
      repository: { ...h.fake.repository, default_branch: 'main' },
      commits: [{ id: head, added: [], modified: lines === null ? [] : [FILE], removed: lines === null ? [FILE] : [] }],
      sender: { login: 'dev', type: 'User' },
    });
    return head;
  }
  const configCheck = (sha: string) => {
    const runs = h.fake.checks.runs.filter((r) => r.headSha === sha && r.name === 'mergeq config');
    expect(runs).toHaveLength(1);
    return runs[0]!;
  };
  const channel = async (id: string) => (await webhooks.list(org)).webhooks.find((w) => w.id === id)!;

  it('a channel the organization does not have fails the check with an annotation on its line naming the likely one, and nothing of the file is applied', async () => {
    const slack = await webhooks.create(org, { name: 'culprits', url: 'https://hooks.slack.example.com/services/T1/B1/x', format: 'slack_blocks', events: ['pull_request.*'] });
    const standard = await webhooks.create(org, { name: 'audit', url: 'https://audit.example.com/hook', events: ['*'] });
    const other = { ...h.repo, name: 'other' };
    await webhooks.create(org, { name: 'other-team', url: 'https://hooks.slack.example.com/services/T1/B2/y', format: 'slack_blocks', events: ['pull_request.*'], repo: other });
    const head = await pushFile(['queues:', '  - branch: main', '    concurrency: 3', 'channels:', '  - channel: culprts', '    verdicts: [culprit]', '  - channel: audit', '  - channel: culprits', '  - channel: other-team']);

    const check = configCheck(head);
    expect(check).toMatchObject({ conclusion: 'failure', output: { title: expect.stringMatching(/^\.github\/mergeq\.yml line 5: channels\[0\]\.channel: no chat channel culprts in this organization, did you mean culprits\? .* \(and 2 more\)$/) } });
    expect(check.output.annotations.map((a: { start_line: number; message: string }) => [a.start_line, a.message])).toEqual([
      [5, expect.stringContaining('mergeq webhook create --name culprts')],
      [7, 'channels[1].channel: audit is a standard webhook, not a chat channel (slack_blocks or teams)'],
      [9, `channels[3].channel: other-team only takes events of github.com/${other.owner}/other`],
    ]);
    await expect(h.queueService.getQueue(org, { repo: h.repo, targetBranch: 'main' })).rejects.toMatchObject({ code: 'queue_not_found' });
    expect((await channel(slack.id)).fileRules).toEqual([]);
    expect((await channel(standard.id)).fileRules).toBeNull();
  });

  it("a channel named by name or id gets the file's rules for this repository, listed with the commit; removing them from the file takes them off", async () => {
    const slack = await webhooks.create(org, { name: 'culprits', url: 'https://hooks.slack.example.com/services/T1/B1/x', format: 'slack_blocks', events: ['pull_request.*'], mentions: { dev: 'U1' } });
    const teams = await webhooks.create(org, { url: 'https://teams.example.com/workflows/x', format: 'teams', events: ['pull_request.*'] });
    const head = await pushFile([
      'channels:',
      '  - channel: Culprits',
      '    verdicts: [culprit, bystander]',
      '    branches: [main]',
      '    mentions: { Octocat: U024BE7LH }',
      `  - channel: ${teams.id}`,
      '    events: ["pull_request.*", queue.frozen]',
    ]);
    const check = configCheck(head);
    expect(check).toMatchObject({ conclusion: 'success', output: { title: `${FILE} applied: 0 queue(s) created, 0 updated, 0 pattern template(s), 2 chat channel(s)` } });
    expect(check.output.summary.split('\n')).toEqual([
      'What changed:',
      '',
      '- channel culprits: rules for this repository set (verdicts, branches, mentions)',
      `- channel ${teams.id}: rules for this repository set (events)`,
    ]);
    const repo = `github.com/${h.repo.owner}/${h.repo.name}`;
    expect((await channel(slack.id)).fileRules).toEqual([
      { repo, source: `${FILE}@${head}`, events: null, verdicts: ['culprit', 'bystander'], branches: ['main'], mentions: { octocat: 'U024BE7LH' } },
    ]);
    // The channel's own rules stay as registered: the file's are for this repository's events only.
    expect(await channel(slack.id)).toMatchObject({ verdicts: ['culprit'], mentions: { dev: 'U1' } });

    const next = await pushFile(['channels:', '  - channel: culprits', '    verdicts: [culprit]']);
    expect(configCheck(next).output.summary.split('\n').slice(2)).toEqual([
      '- channel culprits: rules for this repository replaced (verdicts)',
      `- channel ${teams.id}: no longer set by the file`,
    ]);
    expect((await channel(teams.id)).fileRules).toEqual([]);

    const removed = await pushFile(null);
    expect(configCheck(removed).output.summary).toContain('- channel culprits: no longer set by the file');
    expect((await channel(slack.id)).fileRules).toEqual([]);
  });
});
