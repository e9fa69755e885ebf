import { cliSandbox } from './cli-harness.js';

describe('mergeq webhook', () => {
  const cli = cliSandbox();
  beforeAll(async () => {
    expect((await cli.run(['org', 'create', 'acme', '--owner', 'github.com/acme'])).code).toBe(0);
  });
  afterAll(() => cli.cleanup());

  it('create prints only the secret; list, update, deliveries and delete work on it', async () => {
    const created = await cli.run(['webhook', 'create', '--org', 'acme', '--url', 'https://hooks.example.com/m', '--events', 'pull_request.*,queue.*', '--repo', 'github.com/acme/widgets']);
    expect(created.code).toBe(0);
    expect(created.stdout).toMatch(/^whsec_[A-Za-z0-9+/=]+\n$/);
    const id = /Created webhook (wh_\S+)/.exec(created.stderr)?.[1];
    expect(id).toBeDefined();

    const listed = await cli.run(['webhook', 'list', '--org', 'acme', '--json']);
    expect(JSON.parse(listed.stdout)).toEqual([expect.objectContaining({ id, events: ['pull_request.*', 'queue.*'], enabled: true })]);
    expect(listed.stdout).not.toContain(created.stdout.trim());

    const disabled = await cli.run(['webhook', 'update', id!, '--org', 'acme', '--disable']);
    expect(disabled.code).toBe(0);
    expect(JSON.parse(disabled.stdout)).toMatchObject({ id, enabled: false });

    const log = await cli.run(['webhook', 'deliveries', '--org', 'acme', '--webhook', id!]);
    expect(log.code).toBe(0);
    expect(log.stderr).toContain('0 of 0 deliveries');

    expect((await cli.run(['webhook', 'delete', id!, '--org', 'acme'])).stderr).toContain(`Deleted webhook ${id}`);
    expect(JSON.parse((await cli.run(['webhook', 'list', '--org', 'acme', '--json'])).stdout)).toEqual([]);
  });

  it('refuses a plain-http receiver and an unknown event with a usage error naming the field', async () => {
    const http = await cli.run(['webhook', 'create', '--org', 'acme', '--url', 'http://hooks.example.com/m', '--events', '*']);
    expect(http.code).toBe(2);
    expect(http.stderr).toContain('url must be https');
    const typo = await cli.run(['webhook', 'create', '--org', 'acme', '--url', 'https://h.example.com', '--events', 'pull_request.merge']);
    expect(typo.code).toBe(2);
    expect(typo.stderr).toContain('events[0]');
  });

  it('a chat channel: Teams with its verdicts and the author map; listed without the secret part of its URL', async () => {
    const created = await cli.run([
      'webhook', 'create', '--org', 'acme', '--format', 'teams', '--url', 'https://acme.example.com/workflows/abc123/triggers/manual?sig=s3cr3t',
      '--events', 'pull_request.*,queue.frozen', '--verdicts', 'culprit,bystander', '--mention', 'Octocat=octo@acme.example', '--mention', 'dev=dev@acme.example',
    ]);
    expect(created.code).toBe(0);
    const id = /Created webhook (wh_\S+)/.exec(created.stderr)?.[1];
    const listed = JSON.parse((await cli.run(['webhook', 'list', '--org', 'acme', '--json'])).stdout) as { id: string }[];
    expect(listed.find((w) => w.id === id)).toMatchObject({
      format: 'teams',
      url: 'https://acme.example.com/workflows/…',
      verdicts: ['culprit', 'bystander'],
      mentions: { octocat: 'octo@acme.example', dev: 'dev@acme.example' },
    });
    const updated = await cli.run(['webhook', 'update', id!, '--org', 'acme', '--verdicts', 'culprit,infrastructure']);
    expect(JSON.parse(updated.stdout)).toMatchObject({ verdicts: ['culprit', 'infrastructure'], mentions: { octocat: 'octo@acme.example' } });
    expect((await cli.run(['webhook', 'delete', id!, '--org', 'acme'])).code).toBe(0);

    const notChat = await cli.run(['webhook', 'create', '--org', 'acme', '--url', 'https://h.example.com', '--events', '*', '--verdicts', 'culprit']);
    expect(notChat.code).toBe(2);
    expect(notChat.stderr).toContain('verdicts is for chat channels only');
    const badVerdict = await cli.run(['webhook', 'create', '--org', 'acme', '--format', 'slack_blocks', '--url', 'https://h.example.com', '--events', '*', '--verdicts', 'guilty']);
    expect(badVerdict.code).toBe(2);
    expect(badVerdict.stderr).toContain('--verdicts');
  });

  it('a named Slack channel with a bot token read from the environment: direct messages on, the token never printed; removed with --remove-slack-bot-token', async () => {
    const token = 'xoxb-42-43-cl1T0kenValue';
    const created = await cli.run(
      ['webhook', 'create', '--org', 'acme', '--format', 'slack_blocks', '--url', 'https://hooks.slack.example.com/services/T1/B1/x', '--events', 'pull_request.*', '--mention', 'dev=U024BE7LH', '--slack-bot-token-env', 'SLACK_BOT_TOKEN', '--name', 'culprits', '--json'],
      { SLACK_BOT_TOKEN: token },
    );
    expect(created.code).toBe(0);
    expect(JSON.parse(created.stdout)).toMatchObject({ name: 'culprits', format: 'slack_blocks', directMessages: true });
    const id = /Created webhook (wh_\S+)/.exec(created.stderr)?.[1];
    const table = await cli.run(['webhook', 'list', '--org', 'acme']);
    expect(table.stdout).toMatch(new RegExp(`${id}\\s+culprits\\s.*slack_blocks.*pull_request\\.\\*\\s+yes`));
    const removed = await cli.run(['webhook', 'update', id!, '--org', 'acme', '--remove-slack-bot-token']);
    expect(JSON.parse(removed.stdout)).toMatchObject({ directMessages: false });
    for (const run of [created, table, removed]) expect(run.stdout + run.stderr).not.toContain('cl1T0kenValue');

    const unset = await cli.run(['webhook', 'update', id!, '--org', 'acme', '--slack-bot-token-env', 'NOT_SET_HERE']);
    expect(unset.code).toBe(2);
    expect(unset.stderr).toContain('NOT_SET_HERE is not set');
    expect((await cli.run(['webhook', 'delete', id!, '--org', 'acme'])).code).toBe(0);
  });

  it('--help says the secret is shown once', async () => {
    const help = await cli.run(['webhook', 'create', '--help']);
    expect(help.stdout.replace(/\s+/g, ' ')).toContain('It is shown once');
  });
});
