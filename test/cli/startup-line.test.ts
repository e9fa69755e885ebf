import { startupLine } from '../../src/cli/startup-line.js';

/** The plain line `mergeq serve` writes for a person once it listens. */
describe('the start-up line', () => {
  it('gives the address, the web page and the next command, with the sandbox hint when there is no git host', () => {
    const line = startupLine({}, { host: '0.0.0.0', port: 3000, gitHostKind: 'none' });
    expect(line).toBe(
      'mergeq is running at http://localhost:3000/ (web page http://localhost:3000/ui/). ' +
        'Next: npx mergeq org create <org> --owner github.com/<owner>, then npx mergeq token create --org <org> for a token to sign in with. ' +
        'No git host is configured: to watch PRs merge without GitHub, start it with MERGEQ_GITHOST=sandbox npm start.',
    );
    expect(line).not.toContain('\n');
  });

  it('has no sandbox hint with a git host, and uses MERGEQ_URL when set', () => {
    const line = startupLine({ MERGEQ_URL: 'https://mergeq.example.com' }, { host: '127.0.0.1', port: 8080, gitHostKind: 'github' });
    expect(line).toMatch(/^mergeq is running at https:\/\/mergeq\.example\.com\/ \(web page https:\/\/mergeq\.example\.com\/ui\/\)\. Next: /);
    expect(line).not.toContain('MERGEQ_GITHOST');
  });
});
