import { cliSandbox } from './cli-harness.js';

describe('mergeq --help and usage errors', () => {
  const cli = cliSandbox();
  afterAll(() => cli.cleanup());

  it('--help lists every command and the environment, exit code 0', async () => {
    const result = await cli.run(['--help']);
    expect(result.code).toBe(0);
    for (const text of ['serve', 'org', 'token', 'test', 'MERGEQ_DATA_DIR', 'MONGODB_URI', 'MERGEQ_URL', 'mergeq token create --org acme']) {
      expect(result.stdout).toContain(text);
    }
  });

  it.each([
    [['serve', '--help'], 'Run the merge queue service'],
    [['org', 'create', '--help'], '--owner <host/owner>'],
    [['token', 'create', '--help'], 'Prints only the token on stdout'],
    [['token', 'list', '--help'], 'Never shows a token or its hash'],
    [['token', 'revoke', '--help'], '<token-id>'],
    [['test', '--help'], 'every failed test is quarantined'],
    [['test', 'upload', '--help'], 'Upload JUnit results without running anything'],
    [['queue', 'list', '--help'], '--url <url>'],
    [['queue', 'create', '--help'], 'A misspelled name is refused'],
    [['pr', 'submit', '--help'], '--priority <priority>'],
    [['pr', 'status', '--help'], 'its state, position, stack, why, and its history'],
    [['org', 'list', '--help'], 'Reads the store'],
  ])('%j says what the command does', async (argv, text) => {
    const result = await cli.run(argv);
    expect(result.code).toBe(0);
    expect(result.stdout.replace(/\s+/g, ' ')).toContain(text);
  });

  it('--version prints the package version', async () => {
    const result = await cli.run(['--version']);
    expect(result).toMatchObject({ code: 0, stdout: expect.stringMatching(/^\d+\.\d+\.\d+\n$/) });
  });

  it('an unknown command is a usage error (exit code 2)', async () => {
    const result = await cli.run(['merge-everything']);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain("unknown command 'merge-everything'");
  });

  it('an unknown option is a usage error (exit code 2)', async () => {
    const result = await cli.run(['token', 'list', '--org', 'acme', '--all']);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain("unknown option '--all'");
  });

  it('help does not need a valid environment', async () => {
    expect((await cli.run(['--help'], { MERGEQ_PORT: 'abc' })).code).toBe(0);
  });
});
