import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Reply } from './fake-github-types.js';

export interface FakeGitHubServer {
  /** The API root, e.g. `http://127.0.0.1:40123`. */
  url: string;
  close(): Promise<void>;
}

/** Serves the fake GitHub's REST API over HTTP on 127.0.0.1, for a mergeq that talks to it as to GitHub. */
export async function serveFakeGitHub(fake: { handle(method: string, uri: string, body: Record<string, unknown>): Reply; held?: { gate(method: string, uri: string): Promise<void> | null } }): Promise<FakeGitHubServer> {
  const server = createServer((req, res) => {
    void readJson(req).then(async (body) => {
      await fake.held?.gate(req.method ?? 'GET', decodeURIComponent(req.url ?? '/'));
      const [status, data, headers] = fake.handle(req.method ?? 'GET', decodeURIComponent(req.url ?? '/'), body);
      const text = data === undefined ? '' : JSON.stringify(data);
      res.writeHead(status, { ...(text ? { 'content-type': 'application/json; charset=utf-8' } : {}), ...headers });
      res.end(text);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

async function readJson(req: IncomingMessage): Promise<Record<string, unknown>> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  const text = Buffer.concat(chunks).toString('utf8');
  return text ? (JSON.parse(text) as Record<string, unknown>) : {};
}
