import type { Readable, Writable } from 'node:stream';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import type { Command } from 'commander';
import { ApiClient, type ApiOptions } from '../api-client.js';
import type { CliContext } from '../cli-context.js';
import { mergeqMcpServer } from '../mcp/mcp-tools.js';

/**
 * `mergeq mcp`: the merge queue as a Model Context Protocol server over stdio, for coding agents
 * (docs/agents.md). It calls the REST API of a running service (MERGEQ_URL) with an API token
 * (MERGEQ_TOKEN): what a token may do over REST is what the agent may do. The token is checked
 * before serving; stdout carries only the protocol, messages go to stderr.
 */
export function registerMcp(program: Command, ctx: CliContext): void {
  program
    .command('mcp')
    .description('Serve the merge queue to a coding agent over MCP (stdio): submit, cancel, read a PR and its verdict, list a queue, wait (docs/agents.md).')
    .option('--url <url>', 'the service, e.g. https://mergeq.example.com (default: MERGEQ_URL)')
    .option('--token <token>', 'an API token (default: MERGEQ_TOKEN, which keeps it out of the process list)')
    .action(async (options: ApiOptions) => {
      const api = ApiClient.from(ctx, options);
      // A wrong token or address fails now, in words, rather than at the agent's first call.
      await api.call('listQueues', {});
      const server = mergeqMcpServer(api);
      const stdin = (ctx.io.streams?.stdin ?? process.stdin) as Readable;
      const stdout = (ctx.io.streams?.stdout ?? process.stdout) as Writable;
      const closed = new Promise<void>((resolve) => {
        server.server.onclose = () => resolve();
        stdin.once('end', () => void server.close());
      });
      await server.connect(new StdioServerTransport(stdin, stdout));
      ctx.io.stderr.write(`mergeq mcp: serving ${api.url} over stdio\n`);
      await closed;
    });
}
