import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import type { QueueRecord } from '../../records/queue-record.js';
import type { SubmittedPullRequestRecord } from '../../records/pull-request-record.js';
import { ServiceError } from '../../service/errors.js';
import { packageVersion } from '../package-version.js';
import { parseRepo } from '../commands/queue-ref.js';

/** What the tools call: the REST API with the caller's token (ApiClient), so REST's tenancy and permissions hold. */
export interface McpApi {
  call<T>(operation: string, body: unknown): Promise<T>;
}

export interface McpToolOptions {
  /** How often wait_for_pull_request asks (5 s); tests shorten it. */
  pollMs?: number;
  /** How it waits between two asks; tests move virtual time instead. */
  sleep?: (ms: number) => Promise<void>;
}

const ENDED = new Set(['MERGED', 'FAILED', 'CANCELLED']);
const MAX_WAIT_SECONDS = 3600;

const queueShape = {
  repo: z.string().min(3).describe('the repository: owner/name on github.com, or host/owner/name'),
  branch: z.string().min(1).describe('the branch the queue merges into, e.g. main'),
};
const prShape = { ...queueShape, number: z.number().int().positive().describe('the pull request number') };

/**
 * The merge queue as MCP tools for coding agents (docs/agents.md): submit, cancel, read a PR (state,
 * position, ETA, verdict with evidence), list a queue, wait for a PR to end. Each is one or more REST
 * calls with the token the server was started with; an error answer is a tool error naming the
 * problem, as REST words it.
 */
export function mergeqMcpServer(api: McpApi, options: McpToolOptions = {}): McpServer {
  const server = new McpServer({ name: 'mergeq', version: packageVersion() });
  const pollMs = options.pollMs ?? 5_000;
  const sleep = options.sleep ?? ((ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms)));
  const ref = (a: { repo: string; branch: string }) => ({ repo: parseRepo(a.repo), targetBranch: a.branch });
  const pr = (a: { repo: string; branch: string; number: number }) => ({ ...ref(a), pr: { number: a.number } });

  server.registerTool(
    'submit_pull_request',
    {
      title: 'Submit a pull request to the merge queue',
      description: 'Puts the PR in the queue of the branch it merges into (submitting again changes its priority). Answers where it stands.',
      inputSchema: { ...prShape, priority: z.enum(['urgent', 'high', 'medium', 'low']).optional().describe('default medium') },
    },
    (a) => answer(async () => pullRequestView(await api.call<SubmittedPullRequestRecord>('submitPullRequest', { ...pr(a), ...(a.priority ? { priority: a.priority } : {}) }))),
  );
  server.registerTool(
    'cancel_pull_request',
    { title: 'Take a pull request out of the merge queue', description: 'Cancels its submission; cancelling again changes nothing.', inputSchema: prShape },
    (a) => answer(async () => pullRequestView(await api.call<SubmittedPullRequestRecord>('cancelPullRequest', pr(a)))),
  );
  server.registerTool(
    'get_pull_request',
    {
      title: 'Where a pull request stands in the merge queue',
      description: 'Its state, position, estimated merge time, why it is there, and its verdict (culprit, bystander, flaky, infrastructure, conflict, policy, manual) with the evidence: failing tests, runs, the culprit.',
      inputSchema: prShape,
      annotations: { readOnlyHint: true },
    },
    (a) => answer(async () => pullRequestView(await api.call<SubmittedPullRequestRecord>('getSubmittedPullRequest', pr(a)))),
  );
  server.registerTool(
    'list_queue',
    { title: 'A merge queue and its pull requests', description: 'The queue state and its pull requests in queue order: state, position, ETA, verdict.', inputSchema: queueShape, annotations: { readOnlyHint: true } },
    (a) => answer(async () => queueView(await api.call<QueueRecord>('getQueue', ref(a)))),
  );
  server.registerTool(
    'wait_for_pull_request',
    {
      title: 'Wait until a pull request leaves the merge queue',
      description: `Asks every ${pollMs / 1000} s until it is MERGED, FAILED or CANCELLED, or timeoutSeconds pass; answers where it stands then, with its verdict.`,
      inputSchema: { ...prShape, timeoutSeconds: z.number().int().min(1).max(MAX_WAIT_SECONDS).optional().describe(`default 600, at most ${MAX_WAIT_SECONDS}`) },
      annotations: { readOnlyHint: true },
    },
    (a) =>
      answer(async () => {
        const deadline = Date.now() + (a.timeoutSeconds ?? 600) * 1000;
        for (;;) {
          const record = await api.call<SubmittedPullRequestRecord>('getSubmittedPullRequest', pr(a));
          const ended = ENDED.has(record.state);
          const left = deadline - Date.now();
          if (ended || left <= 0) return { ended, ...pullRequestView(record) };
          await sleep(Math.min(pollMs, left));
        }
      }),
  );
  return server;
}

/** What an agent needs of a PR record: the history stays behind (getSubmittedPullRequest has it). */
function pullRequestView(r: SubmittedPullRequestRecord) {
  return {
    prNumber: r.prNumber,
    title: r.prTitle,
    state: r.state,
    inQueue: r.isCurrentlySubmittedToQueue,
    position: r.position,
    estimatedMergeAt: r.estimatedMergeAt,
    estimatedMergeRange: r.estimatedMergeRange,
    reason: r.reason,
    verdict: r.verdict,
    stack: r.stack,
  };
}

function queueView(q: QueueRecord) {
  return {
    repo: q.repo,
    branch: q.branch,
    state: q.state,
    mode: q.mode,
    freeze: q.freeze,
    pullRequests: q.enqueuedPullRequests.map((p) => ({
      prNumber: p.prNumber,
      title: p.prTitle,
      state: p.state,
      position: p.position,
      estimatedMergeAt: p.estimatedMergeAt,
      verdict: p.verdict ? { code: p.verdict.code, message: p.verdict.message } : null,
      stack: p.stack,
    })),
  };
}

/** The tool's result: its JSON as text and as structured content; a refusal is a tool error saying why. */
async function answer(run: () => Promise<Record<string, unknown>>) {
  try {
    const value = await run();
    return { content: [{ type: 'text' as const, text: JSON.stringify(value, null, 2) }], structuredContent: value };
  } catch (err) {
    const text = err instanceof ServiceError ? `${err.code}: ${err.detail}` : err instanceof Error ? err.message : String(err);
    return { content: [{ type: 'text' as const, text }], isError: true };
  }
}
