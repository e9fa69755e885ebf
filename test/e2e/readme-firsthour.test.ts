import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { freePort } from '../cli/cli-harness.js';

/**
 * The README followed in order on one machine, as a new team does in its first hour: `npm start`,
 * the quick start's commands, then the service restarted as the sandbox, the organization and token
 * made "as above" again, and the sandbox's commands. The commands are the README's own, read from
 * its shell blocks and run with bash and curl; only the port (3000 may be taken) and `npx mergeq`
 * (dist/cli/main.js, what it runs in a clone) are bent. dist/ is built by `npm ci`.
 */
const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const MAIN = join(ROOT, 'dist', 'cli', 'main.js');
const README = readFileSync(join(ROOT, 'README.md'), 'utf8');

/** The first ```sh block after `heading`, as commands (continuation lines joined, comments dropped). */
function commandsAfter(heading: string): string[] {
  const from = README.indexOf(heading);
  expect(from).toBeGreaterThanOrEqual(0);
  const block = /```sh\n([\s\S]*?)```/.exec(README.slice(from))![1]!;
  return block
    .replace(/\\\n\s*/g, '')
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l !== '' && !l.startsWith('#'));
}

let folder: string;
let port: number;
let service: ChildProcess | null = null;

beforeAll(async () => {
  folder = mkdtempSync(join(tmpdir(), 'mergeq-firsthour-'));
  port = await freePort();
});
afterAll(async () => {
  await stop();
  rmSync(folder, { recursive: true, force: true });
});

/** `npm start` (node dist/cli/main.js serve) in the folder, with ./data, until its start-up line. */
async function start(env: Record<string, string> = {}): Promise<void> {
  service = spawn(process.execPath, [MAIN, 'serve'], { cwd: folder, env: { PATH: process.env.PATH ?? '', MERGEQ_PORT: String(port), MERGEQ_HOST: '127.0.0.1', LOG_LEVEL: 'warn', ...env }, stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no start-up line: ${stderr}`)), 15_000);
    service!.stderr!.on('data', (c: Buffer) => {
      stderr += c.toString('utf8');
      if (stderr.includes('mergeq is running')) {
        clearTimeout(timer);
        resolve();
      }
    });
  });
}

async function stop(): Promise<void> {
  if (!service || service.exitCode !== null) return;
  const exited = new Promise((resolve) => service!.once('exit', resolve));
  service.kill('SIGTERM');
  await exited;
  service = null;
}

/** Runs the commands in one bash session (variables carry over): each one's stdout and exit code. */
function shell(commands: string[], env: Record<string, string> = {}): { out: string; code: number }[] {
  const shim = `npx() { if [ "$1" = mergeq ]; then shift; node ${JSON.stringify(MAIN)} "$@"; else command npx "$@"; fi; }`;
  const script = [shim, ...commands.map((c) => `${c.replaceAll('localhost:3000', `127.0.0.1:${port}`)}\nprintf '\\n@@%s@@\\n' "$?"`)].join('\n');
  const run = spawnSync('bash', ['-c', script], { cwd: folder, env: { PATH: process.env.PATH ?? '', ...env }, encoding: 'utf8', timeout: 30_000 });
  const parts = run.stdout.split(/\n@@(\d+)@@\n/);
  const results: { out: string; code: number }[] = [];
  for (let i = 0; i + 1 < parts.length; i += 2) results.push({ out: parts[i]!.trim(), code: Number(parts[i + 1]) });
  expect(results).toHaveLength(commands.length);
  return results;
}

test("the quick start, then the sandbox section, chain on one machine and end with the README's MERGED", async () => {
  const quickStart = commandsAfter('## Quick start');
  expect(quickStart.map((c) => c.split(' ').slice(0, 3).join(' '))).toEqual([
    'npx mergeq org',
    'TOKEN=$(npx mergeq token',
    'curl -s -X',
    'curl -s -X',
    'curl -s -X',
  ]);
  const [orgCreate, tokenCreate, createQueue, submit, getQueue] = quickStart;

  await start();
  const first = shell([orgCreate!, tokenCreate!, 'echo "$TOKEN"', createQueue!, submit!, getQueue!]);
  expect(first.map((r) => r.code)).toEqual([0, 0, 0, 0, 0, 0]);
  expect(first[2]!.out).toMatch(/^mq_/);
  // "the pull request waits as NOT_READY with "gitHubMergeability": "UNSPECIFIED" and the note `no git host is configured`"
  expect(JSON.parse(first[4]!.out)).toMatchObject({ state: 'NOT_READY', readiness: { gitHubMergeability: 'UNSPECIFIED', note: 'no git host is configured' } });
  expect(JSON.parse(first[5]!.out).enqueuedPullRequests).toEqual([expect.objectContaining({ prNumber: 1, state: 'NOT_READY' })]);
  await stop();

  // "run the in-memory sandbox instead (MERGEQ_GITHOST=sandbox npm start; create the organization and token as above)"
  await start({ MERGEQ_GITHOST: 'sandbox' });
  const sandbox = commandsAfter('To watch a pull request go through the queue without GitHub');
  expect(sandbox).toHaveLength(2);
  const [openPull, getSubmitted] = sandbox;
  // "then createQueue and submitPullRequest as above, and a few seconds later:" getSubmittedPullRequest
  const wait = `for i in $(seq 1 50); do ${getSubmitted} | grep -q '"state":"MERGED"' && break; sleep 0.2; done`;
  const second = shell([orgCreate!, tokenCreate!, openPull!, createQueue!, submit!, wait, getSubmitted!]);
  expect(second.map((r) => r.code)).toEqual([0, 0, 0, 0, 0, 0, 0]);
  expect(second[0]!.out).toMatch(/^Organization acme \(id \S+\) already exists, owning github\.com\/acme; nothing to do/);
  expect(JSON.parse(second[2]!.out)).toMatchObject({ number: 1 });
  const again = JSON.parse(second[3]!.out);
  expect(again).toMatchObject({ status: 409, code: 'queue_exists' });
  expect(again.detail).toContain('github.com/acme/widgets');
  const submitted = JSON.parse(second[4]!.out);
  expect(submitted.readiness.note).toBeNull();
  expect(submitted.prTitle).toBe('Add a widget');
  // "-> "state":"MERGED", with history NOT_READY, PENDING, TESTING, TESTS_PASSED, MERGED"
  const merged = JSON.parse(second[6]!.out);
  expect(merged.state).toBe('MERGED');
  const states = (merged.history as { state: string }[]).map((h) => h.state);
  expect(states[0]).toBe('NOT_READY');
  expect(states.slice(-4)).toEqual(['PENDING', 'TESTING', 'TESTS_PASSED', 'MERGED']);
}, 60_000);
