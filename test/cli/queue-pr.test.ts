import { createServer } from 'node:net';
import { pino } from 'pino';
import { startServer, type RunningServer } from '../../src/server/start-server.js';
import { cliSandbox } from './cli-harness.js';

/** `mergeq queue`, `mergeq pr` and `mergeq org list` against a running service: real HTTP server, real SQLite file. */

const cli = cliSandbox();
let server: RunningServer;
let api: Record<string, string>;
const QUEUE = ['--repo', 'acme/widgets', '--branch', 'main'];

beforeAll(async () => {
  await cli.run(['org', 'create', 'acme', '--owner', 'github.com/acme']);
  const token = (await cli.run(['token', 'create', '--org', 'acme', '--name', 'laptop'])).stdout.trim();
  server = await startServer(
    { port: 0, host: '127.0.0.1', dataDir: cli.dataDir, mongodbUri: null, logLevel: 'silent', gitHost: { kind: 'none' }, warnings: [] },
    { logger: pino({ level: 'silent' }) },
  );
  api = { MERGEQ_URL: `http://127.0.0.1:${server.port}`, MERGEQ_TOKEN: token };
}, 60_000);

afterAll(async () => {
  await server.stop();
  cli.cleanup();
});

test('queue list: none yet says how to create one; then a table of the queues, or JSON', async () => {
  const empty = await cli.run(['queue', 'list'], api);
  expect(empty).toMatchObject({ code: 0, stdout: '' });
  expect(empty.stderr).toContain('mergeq queue create --repo owner/name --branch main');

  const created = await cli.run(['queue', 'create', ...QUEUE, '--set', 'concurrency=2', '--set', 'batch=true'], api);
  expect(created).toMatchObject({ code: 0, stdout: 'Created queue github.com/acme/widgets main: running, single, concurrency 2\n' });
  await cli.run(['queue', 'create', '--repo', 'github.com/acme/tools', '--branch', 'release'], api);

  const list = await cli.run(['queue', 'list'], api);
  expect(list.code).toBe(0);
  const lines = list.stdout.trimEnd().split('\n');
  expect(lines[0]).toMatch(/^REPO\s+BRANCH\s+STATE\s+MODE\s+PRS/);
  expect(lines.slice(1).map((l) => l.split(/\s+/).slice(0, 4))).toEqual([
    ['github.com/acme/tools', 'release', 'running', 'single'],
    ['github.com/acme/widgets', 'main', 'running', 'single'],
  ]);
  const json = JSON.parse((await cli.run(['queue', 'list', '--json', '--repo', 'acme/widgets'], api)).stdout);
  expect(json).toEqual([expect.objectContaining({ repo: { host: 'github.com', owner: 'acme', name: 'widgets' }, branch: 'main', depth: 0 })]);
});

test('a misspelled setting is refused with the setting meant (exit 2), and nothing changes', async () => {
  const typo = await cli.run(['queue', 'update', ...QUEUE, '--set', 'concurency=8'], api);
  expect(typo.code).toBe(2);
  expect(typo.stderr).toContain('concurency: unknown field; did you mean concurrency?');
  const shown = await cli.run(['queue', 'show', ...QUEUE], api);
  expect(shown.stdout).toMatch(/^ {2}concurrency\s+2$/m);
});

test('pr submit and pr status: where the pull request is and why; queue show lists it; pause', async () => {
  const submitted = await cli.run(['pr', 'submit', '7', ...QUEUE, '--priority', 'high'], api);
  expect(submitted.code).toBe(0);
  expect(submitted.stdout).toContain('github.com/acme/widgets main: PR #7 is NOT_READY');

  const status = await cli.run(['pr', 'status', '7', ...QUEUE], api);
  expect(status.code).toBe(0);
  expect(status.stdout).toContain('PR #7 is NOT_READY');
  expect(status.stdout).toContain('priority: high (10)');
  expect(status.stdout).toMatch(/^History:\nAT\s+STATE\s+REASON\n\S+\s+NOT_READY\s+\S/m);
  expect(JSON.parse((await cli.run(['pr', 'status', '7', ...QUEUE, '--json'], api)).stdout)).toMatchObject({ prNumber: 7, state: 'NOT_READY' });

  expect((await cli.run(['queue', 'pause', ...QUEUE], api)).stdout).toBe('Queue github.com/acme/widgets main is paused\n');
  const shown = await cli.run(['queue', 'show', ...QUEUE], api);
  expect(shown.stdout).toMatch(/^ {2}state\s+paused$/m);
  expect(shown.stdout).toMatch(/^1 pull request:\nPOS\s+PR.*\n-\s+#7\s+NOT_READY\s+high/m);

  const missing = await cli.run(['pr', 'status', '8', ...QUEUE], api);
  expect(missing).toMatchObject({ code: 1, stderr: 'mergeq: pull request #8 was never submitted to this queue\n' });
});

test('pr status and queue show name a stack named over REST: its id, the layer of the unit and its members', async () => {
  const STACKED = ['--repo', 'acme/widgets', '--branch', 'stacked'];
  await cli.run(['queue', 'create', ...STACKED], api);
  const res = await fetch(`${api.MERGEQ_URL}/v1/submitPullRequest`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-api-token': api.MERGEQ_TOKEN! },
    body: JSON.stringify({ repo: { host: 'github.com', owner: 'acme', name: 'widgets' }, targetBranch: 'stacked', pr: { number: 23 }, stack: { prs: [21, 22, 23] } }),
  });
  expect(res.status).toBe(200);

  const status = await cli.run(['pr', 'status', '22', ...STACKED], api);
  expect(status.stdout).toContain('  stack: declared:21, layer 2 of 3: #21, #22, #23 (tested and landed as one unit)\n');
  const shown = (await cli.run(['queue', 'show', ...STACKED], api)).stdout;
  expect(shown).toMatch(/^3 pull requests:\nPOS\s+PR\s+STACK\s+STATE/m);
  for (const n of [1, 2, 3]) expect(shown).toMatch(new RegExp(`^-\\s+#2${n}\\s+declared:21 ${n}/3\\s+NOT_READY`, 'm'));
});

test('queue freeze and unfreeze: who froze it (the token), why and until when; queue show says it; merge windows as a setting', async () => {
  const frozen = await cli.run(['queue', 'freeze', ...QUEUE, '--reason', 'release 4.2', '--until', '2099-01-01T00:00:00Z', '--allow', '12'], api);
  expect(frozen).toMatchObject({ code: 0, stdout: 'Queue github.com/acme/widgets main is frozen until 2099-01-01T00:00:00.000Z: release 4.2\n' });
  const shown = JSON.parse((await cli.run(['queue', 'show', ...QUEUE, '--json'], api)).stdout);
  expect(shown.freeze).toMatchObject({ reason: 'release 4.2', by: 'laptop', endsAt: '2099-01-01T00:00:00.000Z', allowPullRequests: [12] });
  expect((await cli.run(['queue', 'show', ...QUEUE], api)).stdout).toMatch(/^ {2}freeze\s+\{.*"reason":"release 4.2"/m);
  expect((await cli.run(['queue', 'unfreeze', ...QUEUE], api)).stdout).toBe('Queue github.com/acme/widgets main is not frozen\n');
  expect(JSON.parse((await cli.run(['queue', 'show', ...QUEUE, '--json'], api)).stdout).freeze).toBeNull();

  const noReason = await cli.run(['queue', 'freeze', ...QUEUE], api);
  expect(noReason.code).toBe(2);
  expect(noReason.stderr).toContain("required option '--reason <text>' not specified");

  const windows = '{"timeZone":"Europe/Berlin","windows":[{"days":["mon","tue","wed","thu","fri"],"start":"09:00","end":"17:00"}]}';
  const updated = await cli.run(['queue', 'update', ...QUEUE, '--set', `mergeWindows=${windows}`, '--json'], api);
  expect(JSON.parse(updated.stdout)).toMatchObject({ mergeWindows: JSON.parse(windows), mergeWindow: { open: expect.any(Boolean) } });
});

test('people see why: pr status names the readiness note and the freeze; queue list and show name the hold, not plain running', async () => {
  const ref = ['--repo', 'acme/why', '--branch', 'main'];
  await cli.run(['queue', 'create', ...ref], api);
  await cli.run(['pr', 'submit', '3', ...ref], api);
  expect((await cli.run(['pr', 'status', '3', ...ref], api)).stdout).toMatch(/^github\.com\/acme\/why main: PR #3 is NOT_READY\n {2}not ready: no git host is configured\n/);

  await cli.run(['queue', 'freeze', ...ref, '--reason', 'release 4.2', '--until', '2099-01-01T00:00:00Z'], api);
  const list = (await cli.run(['queue', 'list', '--repo', 'acme/why'], api)).stdout.trimEnd().split('\n');
  expect(list[0]).toMatch(/\sHOLD$/);
  expect(list[1]).toMatch(/^github\.com\/acme\/why\s+main\s+running, held\s+single\s.*frozen until 2099-01-01 00:00 UTC: release 4\.2$/);
  const shown = (await cli.run(['queue', 'show', ...ref], api)).stdout;
  expect(shown).toMatch(/^Queue github\.com\/acme\/why main: running, held: frozen until 2099-01-01 00:00 UTC: release 4\.2\n/);
  expect(shown).toMatch(/\bWHY\b/);
  expect(shown).toMatch(/#3\s+NOT_READY\s+medium\s+-\s+not ready: no git host is configured\s+-/);
  await cli.run(['queue', 'unfreeze', ...ref], api);
  expect((await cli.run(['queue', 'list', '--repo', 'acme/why'], api)).stdout.split('\n')[1]).toMatch(/\s+running\s+single\s.*\s-$/);
});

test('the service and the token come from flags or the environment; a wrong one is said plainly', async () => {
  const none = await cli.run(['queue', 'list']);
  expect(none.code).toBe(2);
  expect(none.stderr).toContain('missing MERGEQ_URL (or --url) and MERGEQ_TOKEN (or --token)');
  const flags = await cli.run(['queue', 'list', '--url', api.MERGEQ_URL!, '--token', api.MERGEQ_TOKEN!]);
  expect(flags.stdout).toContain('github.com/acme/widgets');
  const refused = await cli.run(['queue', 'list'], { ...api, MERGEQ_TOKEN: 'mq_wrong' });
  expect(refused.code).toBe(1);
  expect(refused.stderr).toContain('the service refused the token');
  const closed = await closedPort();
  const down = await cli.run(['queue', 'list'], { ...api, MERGEQ_URL: `http://127.0.0.1:${closed}` });
  expect(down.stderr).toBe(`mergeq: cannot reach the service at http://127.0.0.1:${closed} (ECONNREFUSED); check MERGEQ_URL\n`);
});

test('org list reads the store, like org create', async () => {
  await cli.run(['org', 'create', 'globex', '--owner', 'github.com/globex']);
  const list = await cli.run(['org', 'list']);
  expect(list.stdout.split('\n').slice(1, 3).map((l) => l.split(/\s+/).slice(0, 2))).toEqual([
    ['acme', 'github.com/acme'],
    ['globex', 'github.com/globex'],
  ]);
  expect(JSON.parse((await cli.run(['org', 'list', '--json'])).stdout).map((o: { slug: string }) => o.slug)).toEqual(['acme', 'globex']);
});

/** A port nothing listens on. */
async function closedPort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const { port } = probe.address() as { port: number };
  await new Promise((resolve) => probe.close(resolve));
  return port;
}

test('queue template create, list and delete; a PR submitted to a matching branch gets its queue', async () => {
  const created = await cli.run(['queue', 'template', 'create', '--repo', 'acme/widgets', '--pattern', 'release/*', '--set', 'concurrency=3'], api);
  expect(created).toMatchObject({ code: 0, stdout: 'Created queue template release/* of acme/widgets\n' });
  const list = await cli.run(['queue', 'template', 'list'], api);
  expect(list.stdout.trimEnd().split('\n').map((l) => l.split(/\s+/))).toEqual([
    ['REPOSITORY', 'PATTERN', 'SETTINGS', 'SOURCE'],
    ['acme/widgets', 'release/*', 'concurrency=3', 'api'],
  ]);

  expect((await cli.run(['pr', 'submit', '8', '--repo', 'acme/widgets', '--branch', 'release/2.0'], api)).code).toBe(0);
  expect(JSON.parse((await cli.run(['queue', 'show', '--repo', 'acme/widgets', '--branch', 'release/2.0', '--json'], api)).stdout)).toMatchObject({
    concurrency: 3,
    createdFrom: { pattern: 'release/*' },
  });

  expect((await cli.run(['queue', 'template', 'delete', '--repo', 'acme/widgets', '--pattern', 'release/*'], api)).stdout).toBe('Deleted queue template release/*\n');
  expect((await cli.run(['queue', 'template', 'list'], api)).stderr).toContain('No queue templates yet');
});
