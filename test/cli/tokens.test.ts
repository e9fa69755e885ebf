import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { hashToken } from '../../src/service/access/tokens.js';
import { openStore } from '../../src/store/open.js';
import { cliSandbox } from './cli-harness.js';

const TOKEN_LINE = /^mq_[A-Za-z0-9_-]{43}\n$/;

describe('mergeq token', () => {
  let cli: ReturnType<typeof cliSandbox>;
  let time: Date;
  beforeEach(async () => {
    time = new Date('2026-11-22T10:00:00.000Z');
    cli = cliSandbox({ now: () => time });
    expect((await cli.run(['org', 'create', 'acme', '--owner', 'github.com/acme'])).code).toBe(0);
  });
  afterEach(() => cli.cleanup());

  async function createToken(name?: string): Promise<{ token: string; id: string }> {
    const result = await cli.run(['token', 'create', '--org', 'acme', ...(name ? ['--name', name] : [])]);
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(TOKEN_LINE);
    const id = /Created token ([0-9a-f-]{36})/.exec(result.stderr)?.[1];
    expect(id).toBeDefined();
    return { token: result.stdout.trim(), id: id! };
  }

  describe('create', () => {
    it('prints only the token on stdout; the store holds its hash, for the organization', async () => {
      const { token, id } = await createToken('ci');
      const store = await openStore({ dataDir: cli.dataDir });
      try {
        const record = await store.orgs.findTokenByHash(hashToken(token));
        const org = await store.orgs.getOrgBySlug('acme');
        expect(record).toMatchObject({ id, name: 'ci', orgId: org!.id, revokedAt: null, prefix: token.slice(0, 9) });
      } finally {
        await store.close();
      }
    });

    it('tells on stderr that the token is shown once', async () => {
      const result = await cli.run(['token', 'create', '--org', 'acme']);
      expect(result.stderr).toMatch(/Created token [0-9a-f-]{36} \("default"\) for organization acme\. Store it now: it cannot be shown again/);
      expect(result.stderr).not.toContain(result.stdout.trim());
    });

    it('never writes the token itself to the database files', async () => {
      const { token } = await createToken('ci');
      const files = readdirSync(cli.dataDir).map((f) => readFileSync(join(cli.dataDir, f)).toString('latin1'));
      expect(files.length).toBeGreaterThan(0);
      expect(files.join('')).toContain(hashToken(token));
      expect(files.join('')).not.toContain(token);
    });

    it('gives a new token each time', async () => {
      const a = await createToken();
      const b = await createToken();
      expect(a.token).not.toBe(b.token);
      expect(a.id).not.toBe(b.id);
    });

    it('fails with exit code 1 for an unknown organization, printing nothing on stdout', async () => {
      const result = await cli.run(['token', 'create', '--org', 'nope']);
      expect(result).toEqual({ code: 1, stdout: '', stderr: 'mergeq: no organization with slug "nope"\n' });
    });

    it('requires --org', async () => {
      const result = await cli.run(['token', 'create']);
      expect(result.code).toBe(2);
      expect(result.stderr).toContain("required option '--org <slug>' not specified");
    });
  });

  describe('list', () => {
    it('shows id, name, prefix, created, last used and revoked, never the token or its hash', async () => {
      const first = await createToken('ci');
      time = new Date('2026-11-23T08:30:00.000Z');
      const second = await createToken('deploy');
      const result = await cli.run(['token', 'list', '--org', 'acme']);
      expect(result.code).toBe(0);
      const lines = result.stdout.trimEnd().split('\n');
      expect(lines[0]).toMatch(/^ID\s+NAME\s+PREFIX\s+CREATED\s+LAST USED\s+REVOKED$/);
      expect(lines[1]).toMatch(new RegExp(`^${first.id}\\s+ci\\s+${first.token.slice(0, 9)}…\\s+2026-11-22T10:00:00.000Z\\s+-\\s+-$`));
      expect(lines[2]).toMatch(new RegExp(`^${second.id}\\s+deploy\\s+${second.token.slice(0, 9)}…\\s+2026-11-23T08:30:00.000Z\\s+-\\s+-$`));
      for (const t of [first.token, second.token]) {
        expect(result.stdout).not.toContain(t);
        expect(result.stdout).not.toContain(hashToken(t));
      }
    });

    it('--json gives the same fields as JSON, without token or hash', async () => {
      const { token, id } = await createToken('ci');
      const result = await cli.run(['token', 'list', '--org', 'acme', '--json']);
      expect(JSON.parse(result.stdout)).toEqual([
        { id, name: 'ci', prefix: token.slice(0, 9), createdAt: '2026-11-22T10:00:00.000Z', lastUsedAt: null, revokedAt: null },
      ]);
      expect(result.stdout).not.toContain(hashToken(token));
    });

    it('shows when a token was last used', async () => {
      const { id } = await createToken('ci');
      const store = await openStore({ dataDir: cli.dataDir });
      await store.orgs.touchToken(id, '2026-11-22T11:00:00.000Z');
      await store.close();
      const result = await cli.run(['token', 'list', '--org', 'acme', '--json']);
      expect(JSON.parse(result.stdout)[0].lastUsedAt).toBe('2026-11-22T11:00:00.000Z');
    });

    it('says so on stderr when there are none', async () => {
      const result = await cli.run(['token', 'list', '--org', 'acme']);
      expect(result).toMatchObject({ code: 0, stdout: '' });
      expect(result.stderr).toContain('has no tokens');
    });

    it('fails for an unknown organization', async () => {
      expect((await cli.run(['token', 'list', '--org', 'nope'])).code).toBe(1);
    });
  });

  describe('revoke', () => {
    it('revokes the token: the store marks it revoked and the list shows when', async () => {
      const { token, id } = await createToken('ci');
      time = new Date('2026-11-22T12:00:00.000Z');
      const result = await cli.run(['token', 'revoke', id]);
      expect(result).toEqual({ code: 0, stdout: `Revoked token ${id} ("ci")\n`, stderr: '' });

      const store = await openStore({ dataDir: cli.dataDir });
      try {
        expect((await store.orgs.findTokenByHash(hashToken(token)))?.revokedAt).toBe('2026-11-22T12:00:00.000Z');
      } finally {
        await store.close();
      }
      const list = await cli.run(['token', 'list', '--org', 'acme']);
      expect(list.stdout.split('\n')[1]).toMatch(/2026-11-22T12:00:00\.000Z$/);
    });

    it('revoking twice succeeds and keeps the first time', async () => {
      const { id } = await createToken('ci');
      await cli.run(['token', 'revoke', id]);
      time = new Date('2026-11-25T00:00:00.000Z');
      const again = await cli.run(['token', 'revoke', id]);
      expect(again).toEqual({ code: 0, stdout: `Token ${id} ("ci") was already revoked at 2026-11-22T10:00:00.000Z\n`, stderr: '' });
    });

    it('fails with exit code 1 for an unknown token id', async () => {
      const result = await cli.run(['token', 'revoke', '00000000-0000-4000-8000-000000000000']);
      expect(result).toEqual({ code: 1, stdout: '', stderr: 'mergeq: no token with id "00000000-0000-4000-8000-000000000000"\n' });
    });
  });
});

describe('mergeq token with a store that cannot be opened', () => {
  it('names MERGEQ_DATA_DIR and what to do, with exit code 78', async () => {
    const cli = cliSandbox();
    try {
      // A file where the data folder should be: SQLite cannot create its database there.
      const blocked = join(cli.dataDir, 'not-a-folder');
      writeFileSync(blocked, '');
      const result = await cli.run(['token', 'list', '--org', 'acme'], { MERGEQ_DATA_DIR: blocked });
      expect(result.code).toBe(78);
      expect(result.stderr).toMatch(new RegExp(`^mergeq: cannot use the data folder MERGEQ_DATA_DIR=${blocked} \\(ENOTDIR[^)]*\\); a file is in the way`));
    } finally {
      cli.cleanup();
    }
  });
});
