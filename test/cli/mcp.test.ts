import type { Server } from 'node:http';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { runCli } from '../../src/cli/run-cli.js';
import { listenLocally } from '../e2e/browser.js';
import { SandboxService } from '../e2e/sandbox-service.js';
import { stdioPipe } from './mcp-stdio-client.js';

/**
 * `mergeq mcp` as a coding agent sees it: the command run in-process over a stdio pipe, an MCP
 * client from the official SDK, the REST API of a sandbox service on 127.0.0.1 (MERGEQ_GITHOST=sandbox
 * wiring, virtual time). The agent lists the tools, submits a sandbox PR, and reads its verdict.
 */

const REPO = { host: 'github.com', owner: 'acme', name: 'agents' };
const QUEUE = { repo: REPO, targetBranch: 'main' };

let svc: SandboxService;
let server: Server;
let base: string;

beforeAll(async () => {
  svc = await SandboxService.start({ tests: { steadyTests: 2, flakyTests: [] } });
  ({ server, base } = await listenLocally(svc.app));
  await svc.ok('createQueue', { ...QUEUE, flakeRetries: 0 });
  // A first PR merges: the queue has seen the CI upload test results, so it waits for them before
  // deciding a failure, and the verdict below names the failing test whatever the timing.
  const first = await svc.openPull(REPO, 'first', { bad: false, ciMinutes: 10 });
  await svc.ok('submitPullRequest', { ...QUEUE, pr: { number: first.number } });
  await svc.advanceMinutes(12);
});
afterAll(async () => {
  await new Promise((resolve) => server?.close(resolve));
  await svc?.stop();
});

/** Starts `mergeq mcp` with the token and connects an SDK client to it. */
async function connect(token: string) {
  const pipe = stdioPipe();
  const stderr: string[] = [];
  const exited = runCli(['mcp'], { stdout: { write: () => true }, stderr: { write: (t: string) => stderr.push(t) }, env: { MERGEQ_URL: base, MERGEQ_TOKEN: token }, streams: pipe.server });
  const client = new Client({ name: 'test-agent', version: '1.0.0' });
  await client.connect(pipe.client);
  return { client, exited, stderr };
}

type ToolResult = { isError?: boolean; structuredContent?: Record<string, unknown>; content: { type: string; text: string }[] };

test('an agent lists the tools, submits a sandbox PR, waits for it and reads its verdict with the evidence', async () => {
  const { client, exited, stderr } = await connect(svc.token);
  const { tools } = await client.listTools();
  expect(tools.map((t) => t.name).sort()).toEqual(['cancel_pull_request', 'get_pull_request', 'list_queue', 'submit_pull_request', 'wait_for_pull_request']);
  expect(tools.find((t) => t.name === 'get_pull_request')!.inputSchema).toMatchObject({ type: 'object', required: ['repo', 'branch', 'number'] });

  const pr = await svc.openPull(REPO, 'agent change', { bad: true, ciMinutes: 10 });
  const submitted = (await client.callTool({ name: 'submit_pull_request', arguments: { repo: 'acme/agents', branch: 'main', number: pr.number } })) as ToolResult;
  expect(submitted.isError).toBeFalsy();
  expect(submitted.structuredContent).toMatchObject({ prNumber: pr.number, inQueue: true, verdict: null });
  await svc.settle();

  const listed = (await client.callTool({ name: 'list_queue', arguments: { repo: 'github.com/acme/agents', branch: 'main' } })) as ToolResult;
  expect(listed.structuredContent).toMatchObject({ state: 'running', pullRequests: [{ prNumber: pr.number, state: 'TESTING', position: 1 }] });

  // Still testing: the wait gives up after its timeout and says so.
  const early = (await client.callTool({ name: 'wait_for_pull_request', arguments: { repo: 'acme/agents', branch: 'main', number: pr.number, timeoutSeconds: 1 } })) as ToolResult;
  expect(early.structuredContent).toMatchObject({ ended: false, state: 'TESTING' });

  await svc.advanceMinutes(12);
  // The sandbox CI's test results are uploaded beside its statuses: when they come after the run's
  // verdict, the verdict is given again with them (docs/verdicts.md). Wait for that, bounded.
  const waitForEnd = async () => (await client.callTool({ name: 'wait_for_pull_request', arguments: { repo: 'acme/agents', branch: 'main', number: pr.number } })) as ToolResult;
  let done = await waitForEnd();
  for (let i = 0; i < 50 && !JSON.stringify(done.structuredContent).includes('fails test of'); i++) {
    await new Promise((resolve) => setTimeout(resolve, 100));
    await svc.settle();
    done = await waitForEnd();
  }
  expect(done.structuredContent).toMatchObject({ ended: true, state: 'FAILED', verdict: { code: 'culprit', message: `culprit: this pull request fails test of #${pr.number}` } });
  const evidence = (done.structuredContent!.verdict as { evidence: { failedTests: { name: string }[]; runs: { url: string }[] } }).evidence;
  expect(evidence.failedTests.map((t) => t.name)).toEqual([`test of #${pr.number}`]);
  expect(evidence.runs[0]!.url).toMatch(/^https:\/\/ci\.sandbox\.invalid\/runs\/\d+$/);
  expect(JSON.parse(done.content[0]!.text)).toEqual(done.structuredContent);

  await client.close();
  expect(await exited).toBe(0);
  expect(stderr.join('')).toContain(`mergeq mcp: serving ${base}`);
});

test('an agent sees a stack member\'s stack: the unit it is tested and landed with', async () => {
  const bottom = await svc.openPull(REPO, 'layer 1', { bad: false, ciMinutes: 10 });
  const top = await svc.openPull(REPO, 'layer 2', { bad: false, ciMinutes: 10, stackOn: bottom.number });
  await svc.ok('submitPullRequest', { ...QUEUE, pr: { number: top.number }, stack: { below: true } });
  const { client, exited } = await connect(svc.token);
  const stack = { id: `chain:${bottom.number}`, number: null, kind: 'chain', size: 2, members: [bottom.number, top.number] };
  const read = (await client.callTool({ name: 'get_pull_request', arguments: { repo: 'acme/agents', branch: 'main', number: bottom.number } })) as ToolResult;
  expect(read.structuredContent).toMatchObject({ prNumber: bottom.number, stack: { ...stack, position: 1 } });
  const listed = (await client.callTool({ name: 'list_queue', arguments: { repo: 'acme/agents', branch: 'main' } })) as ToolResult;
  const prs = listed.structuredContent!.pullRequests as { prNumber: number; stack: unknown }[];
  expect(prs.filter((p) => p.stack !== null).map((p) => [p.prNumber, p.stack])).toEqual([
    [bottom.number, { ...stack, position: 1 }],
    [top.number, { ...stack, position: 2 }],
  ]);
  await client.close();
  expect(await exited).toBe(0);
});

test('the same tenancy as REST: another organization\'s token reads and submits nothing of acme\'s', async () => {
  const { client, exited } = await connect(svc.otherOrgToken);
  const read = (await client.callTool({ name: 'get_pull_request', arguments: { repo: 'acme/agents', branch: 'main', number: 1 } })) as ToolResult;
  expect(read.isError).toBe(true);
  expect(read.content[0]!.text).toMatch(/^forbidden: /);
  const submit = (await client.callTool({ name: 'submit_pull_request', arguments: { repo: 'acme/agents', branch: 'main', number: 1 } })) as ToolResult;
  expect(submit.isError).toBe(true);
  await client.close();
  expect(await exited).toBe(0);
});

test('a wrong token stops the command before it serves, saying why', async () => {
  const stderr: string[] = [];
  const code = await runCli(['mcp'], { stdout: { write: () => true }, stderr: { write: (t: string) => stderr.push(t) }, env: { MERGEQ_URL: base, MERGEQ_TOKEN: 'mq_wrong' } });
  expect(code).not.toBe(0);
  expect(stderr.join('')).toContain('check MERGEQ_TOKEN');
});
