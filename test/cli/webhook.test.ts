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

  it('--help says the secret is shown once', async () => {
    const help = await cli.run(['webhook', 'create', '--help']);
    expect(help.stdout.replace(/\s+/g, ' ')).toContain('It is shown once');
  });
});
