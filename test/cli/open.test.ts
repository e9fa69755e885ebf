import { cliSandbox } from './cli-harness.js';

describe('mergeq open and serve --port', () => {
  const cli = cliSandbox();
  afterAll(() => cli.cleanup());

  it('prints the web page address of the local service, without opening anything', async () => {
    expect(await cli.run(['open'], { MERGEQ_PORT: '8123' })).toMatchObject({ code: 0, stdout: 'http://localhost:8123/ui/\n' });
  });

  it('prints the address under MERGEQ_URL when the service is elsewhere', async () => {
    expect(await cli.run(['open'], { MERGEQ_URL: 'https://mergeq.example.com/base' })).toMatchObject({ code: 0, stdout: 'https://mergeq.example.com/base/ui/\n' });
  });

  it('serve --port points to MERGEQ_PORT (usage error, nothing started)', async () => {
    const result = await cli.run(['serve', '--port', '8080']);
    expect(result.code).toBe(2);
    expect(result.stderr).toBe('mergeq serve takes its port from the environment: MERGEQ_PORT=8080 mergeq serve\n');
  });
});
