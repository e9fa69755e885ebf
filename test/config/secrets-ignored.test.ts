import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

/**
 * The App's secrets never reach a commit by accident: `.env` (which the docs fill with PRIVATE_KEY and
 * WEBHOOK_SECRET), the key file GitHub hands out, and the data folder where `mergeq setup github`
 * stores the App are all git-ignored, so `git add -A` leaves them out.
 */
const REPO = fileURLToPath(new URL('../..', import.meta.url));

function ignored(path: string): boolean {
  return spawnSync('git', ['check-ignore', '--no-index', '--quiet', path], { cwd: REPO }).status === 0;
}

describe('.gitignore keeps the secrets out of git', () => {
  it.each(['.env', '.env.production', 'acme-mergeq.2026-11-29.private-key.pem', 'keys/app.pem', 'data/github-app.json'])('ignores %s', (path) => {
    expect(ignored(path)).toBe(true);
  });

  it('still tracks the files the project needs', () => {
    for (const path of ['.env.example', 'app.yml', 'src/config/dot-env.ts']) expect(ignored(path)).toBe(false);
  });
});
