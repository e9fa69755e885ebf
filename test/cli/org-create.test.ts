import { openStore } from '../../src/store/open.js';
import { cliSandbox } from './cli-harness.js';

describe('mergeq org create', () => {
  let cli: ReturnType<typeof cliSandbox>;
  beforeEach(() => {
    cli = cliSandbox({ now: () => new Date('2026-11-22T10:00:00.000Z') });
  });
  afterEach(() => cli.cleanup());

  it('creates an organization owning the given owners, lower-cased, in the store under MERGEQ_DATA_DIR', async () => {
    const result = await cli.run(['org', 'create', 'acme', '--owner', 'github.com/Acme', '--owner', 'github.com/acme-labs']);
    expect(result).toMatchObject({ code: 0, stderr: '' });
    expect(result.stdout).toMatch(/^Created organization acme \(id [0-9a-f-]{36}\), owning github\.com\/acme, github\.com\/acme-labs\n$/);

    const store = await openStore({ dataDir: cli.dataDir });
    try {
      const org = await store.orgs.getOrgBySlug('acme');
      expect(org).toMatchObject({ slug: 'acme', owners: ['github.com/acme', 'github.com/acme-labs'], createdAt: '2026-11-22T10:00:00.000Z' });
      expect((await store.orgs.findOrgByOwner('github.com/acme-labs'))?.slug).toBe('acme');
    } finally {
      await store.close();
    }
  });

  it('refuses a duplicate slug with other owners with exit code 1, naming the owners it has and what to do', async () => {
    expect((await cli.run(['org', 'create', 'acme', '--owner', 'github.com/acme'])).code).toBe(0);
    const again = await cli.run(['org', 'create', 'acme', '--owner', 'github.com/other']);
    expect(again).toEqual({
      code: 1,
      stdout: '',
      stderr: 'mergeq: organization "acme" already exists, owning github.com/acme; choose another slug, or use it as it is (mergeq token create --org acme)\n',
    });
  });

  it('is no error when the organization exists with those owners (the README followed twice): exit 0, says so', async () => {
    const first = await cli.run(['org', 'create', 'acme', '--owner', 'github.com/acme']);
    const again = await cli.run(['org', 'create', 'acme', '--owner', 'github.com/Acme']);
    expect(again.code).toBe(0);
    expect(again.stderr).toBe('');
    expect(again.stdout).toBe(`Organization acme (id ${/id ([0-9a-f-]{36})/.exec(first.stdout)![1]}) already exists, owning github.com/acme; nothing to do. Next: mergeq token create --org acme\n`);
  });

  it('refuses an owner that another organization owns, naming that organization', async () => {
    await cli.run(['org', 'create', 'acme', '--owner', 'github.com/acme']);
    const result = await cli.run(['org', 'create', 'acme2', '--owner', 'GitHub.com/ACME']);
    expect(result.code).toBe(1);
    expect(result.stderr).toBe('mergeq: github.com/acme already belongs to organization "acme"\n');
  });

  it.each([['acme'], ['https://github.com/acme'], ['github.com/acme/repo'], ['github.com/'], ['git hub.com/acme']])(
    'rejects the owner %j: it must be host/owner (exit code 2)',
    async (owner) => {
      const result = await cli.run(['org', 'create', 'acme', '--owner', owner]);
      expect(result.code).toBe(2);
      expect(result.stderr).toContain('write host/owner, e.g. github.com/acme');
    },
  );

  it.each([['Acme'], ['acme_labs'], ['acme-'], ['acme--labs'], ['a'.repeat(65)]])('rejects the slug %j (exit code 2)', async (slug) => {
    const result = await cli.run(['org', 'create', slug, '--owner', 'github.com/acme']);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('lower-case letters, digits and dashes');
  });

  it('requires at least one --owner', async () => {
    const result = await cli.run(['org', 'create', 'acme']);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain("required option '--owner <host/owner>' not specified");
  });

  it('stops with exit code 78 and names the variable when the environment is invalid', async () => {
    const result = await cli.run(['org', 'create', 'acme', '--owner', 'github.com/acme'], { MERGEQ_PORT: 'abc' });
    expect(result.code).toBe(78);
    expect(result.stderr).toBe('mergeq: invalid configuration:\n  - MERGEQ_PORT must be an integer from 1 to 65535 (got "abc")\n');
  });
});
