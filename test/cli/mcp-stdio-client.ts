import { PassThrough } from 'node:stream';
import { ReadBuffer, serializeMessage } from '@modelcontextprotocol/sdk/shared/stdio.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';

/**
 * The client's end of a stdio pipe to `mergeq mcp` run in-process: what StdioClientTransport does
 * with a child's stdin and stdout (newline-delimited JSON-RPC, the SDK's own framing), over two
 * in-memory pipes. `server` is what the command is given as its stdin and stdout.
 */
export function stdioPipe(): { client: Transport; server: { stdin: PassThrough; stdout: PassThrough } } {
  const toServer = new PassThrough();
  const fromServer = new PassThrough();
  const buffer = new ReadBuffer();
  const client: Transport = {
    async start() {
      fromServer.on('data', (chunk: Buffer) => {
        buffer.append(chunk);
        for (let message = buffer.readMessage(); message; message = buffer.readMessage()) client.onmessage?.(message);
      });
    },
    async send(message: JSONRPCMessage) {
      toServer.write(serializeMessage(message));
    },
    async close() {
      toServer.end();
      client.onclose?.();
    },
  };
  return { client, server: { stdin: toServer, stdout: fromServer } };
}
