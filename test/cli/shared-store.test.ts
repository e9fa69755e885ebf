import { hashToken } from '../../src/service/access/tokens.js';
import { openStore } from '../../src/store/open.js';
import type { Store } from '../../src/store/store.js';
import { cliSandbox } from './cli-harness.js';

/** The admin commands work against the store a running server has open (SQLite in WAL mode). */
describe('CLI and server share the store', () => {
  let cli: ReturnType<typeof cliSandbox>;
  let serverStore: Store;
  beforeEach(async () => {
    cli = cliSandbox();
    serverStore = await openStore({ dataDir: cli.dataDir });
  });
  afterEach(async () => {
    await serverStore.close();
    cli.cleanup();
  });

  it('an organization and a token created by the CLI are found by the store the server holds open', async () => {
    expect((await cli.run(['org', 'create', 'acme', '--owner', 'github.com/acme'])).code).toBe(0);
    const created = await cli.run(['token', 'create', '--org', 'acme', '--name', 'ci']);
    expect(created.code).toBe(0);

    const record = await serverStore.orgs.findTokenByHash(hashToken(created.stdout.trim()));
    const org = await serverStore.orgs.findOrgByOwner('github.com/acme');
    expect(org?.slug).toBe('acme');
    expect(record).toMatchObject({ orgId: org!.id, name: 'ci', revokedAt: null });
  });

  it('a revocation by the CLI is seen by the open store at once', async () => {
    await cli.run(['org', 'create', 'acme', '--owner', 'github.com/acme']);
    const token = (await cli.run(['token', 'create', '--org', 'acme'])).stdout.trim();
    const record = await serverStore.orgs.findTokenByHash(hashToken(token));
    expect((await cli.run(['token', 'revoke', record!.id])).code).toBe(0);
    expect((await serverStore.orgs.findTokenByHash(hashToken(token)))?.revokedAt).not.toBeNull();
  });

  it('the server store writing meanwhile does not block the CLI', async () => {
    await cli.run(['org', 'create', 'acme', '--owner', 'github.com/acme']);
    const org = await serverStore.orgs.getOrgBySlug('acme');
    await serverStore.orgs.addOrgOwner(org!.id, 'github.com/acme-labs');
    const result = await cli.run(['org', 'create', 'labs', '--owner', 'github.com/acme-labs']);
    expect(result).toMatchObject({ code: 1, stderr: 'mergeq: github.com/acme-labs already belongs to organization "acme"\n' });
  });
});
