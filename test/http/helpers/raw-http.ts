import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type express from 'express';

export interface RawResponse {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: string;
}

/** A real listening server for requests supertest cannot make (declared lengths, streamed bodies). */
export async function listen(app: express.Express): Promise<{ port: number; server: http.Server; close: () => Promise<void> }> {
  const server = http.createServer(app);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    port,
    server,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/**
 * POSTs with a declared Content-Length but sends only `sent` of it, then waits for the answer: a
 * server that answers has decided on the header alone, without reading (or buffering) the body.
 */
export function postDeclaredLength(
  port: number,
  path: string,
  headers: Record<string, string>,
  declared: number,
  sent: string,
): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    const req = http.request(
      { host: '127.0.0.1', port, path, method: 'POST', headers: { ...headers, 'content-length': String(declared) } },
      (res) => collect(res).then((r) => {
        req.destroy();
        resolve(r);
      }, reject),
    );
    req.on('error', reject);
    req.write(sent);
  });
}

export function collect(res: http.IncomingMessage): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    res.on('data', (c: Buffer) => chunks.push(c));
    res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks).toString('utf8') }));
    res.on('error', reject);
  });
}

/** POSTs `body` as is, with its Content-Length (supertest re-encodes some bodies, e.g. gzip Buffers). */
export function postBytes(port: number, path: string, headers: Record<string, string>, body: Buffer): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    const req = http.request(
      { host: '127.0.0.1', port, path, method: 'POST', headers: { ...headers, 'content-length': String(body.length) } },
      (res) => collect(res).then(resolve, reject),
    );
    req.on('error', reject);
    req.end(body);
  });
}

/**
 * Starts a POST whose body the test writes itself (streamed, stalled, cut short); `response` is the
 * answer. Connection errors are ignored unless the test listens for them on `req`.
 */
export function openPost(port: number, path: string, headers: Record<string, string>): { req: http.ClientRequest; response: Promise<RawResponse> } {
  const req = http.request({ host: '127.0.0.1', port, path, method: 'POST', headers });
  const response = new Promise<RawResponse>((resolve) => req.on('response', (res) => void collect(res).then(resolve)));
  req.on('error', () => undefined);
  return { req, response };
}
