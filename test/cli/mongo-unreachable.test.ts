import { cliSandbox, freePort } from './cli-harness.js';

/**
 * MONGODB_URI naming a MongoDB that is not there (a refused local port): `serve` and the admin
 * commands stop within 10 s (not the driver's 30 s) with one line naming MONGODB_URI and the address
 * tried, never the URI's credentials.
 */
const cli = cliSandbox();
afterAll(() => cli.cleanup());

describe('an unreachable MONGODB_URI', () => {
  it('stops `mergeq serve` within 10 s, naming MONGODB_URI and the address tried, without the password', async () => {
    const port = await freePort();
    const started = Date.now();
    const run = await cli.run(['serve'], { MONGODB_URI: `mongodb://admin:s3cret@127.0.0.1:${port}/mergeq`, MERGEQ_PORT: String(await freePort()), LOG_LEVEL: 'silent' });
    expect(Date.now() - started).toBeLessThan(10_000);
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(new RegExp(`^mergeq: cannot reach MongoDB at 127\\.0\\.0\\.1:${port} \\(MONGODB_URI\\): .*ECONNREFUSED.*; check that MongoDB runs there and that MONGODB_URI names it`));
    expect(run.stderr).not.toContain('s3cret');
  }, 15_000);

  it('stops an admin command the same way (a timeout in the URI wins over the 5 s)', async () => {
    const port = await freePort();
    const run = await cli.run(['org', 'list'], { MONGODB_URI: `mongodb://127.0.0.1:${port}/?serverSelectionTimeoutMS=300` });
    expect(run.code).toBe(1);
    expect(run.stderr).toContain(`mergeq: cannot reach MongoDB at 127.0.0.1:${port} (MONGODB_URI)`);
  }, 15_000);
});
