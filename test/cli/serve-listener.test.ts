import { Agent, request, type IncomingMessage, type ServerResponse } from 'node:http';
import { listen, ListenError, type HttpListener } from '../../src/server/http-listener.js';

/** How `mergeq serve` stops: no new connections, requests in flight finish, stragglers are cut. */

function get(port: number, path = '/', agent: Agent | false = false): Promise<{ status: number; body: string; connection: string | undefined }> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, path, agent }, (res) => {
      let body = '';
      res.on('data', (c) => (body += c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body, connection: res.headers.connection }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end();
  });
}

describe('http listener shutdown', () => {
  let held: ServerResponse[];
  let arrived: Promise<void>;
  let onArrive: () => void;
  let listener: HttpListener;

  async function start(graceMs: number) {
    held = [];
    arrived = new Promise((r) => (onArrive = r));
    listener = await listen(
      (req: IncomingMessage, res: ServerResponse) => {
        if (req.url === '/slow') {
          held.push(res);
          onArrive();
          return;
        }
        res.end('fast');
      },
      { port: 0, host: '127.0.0.1', graceMs },
    );
  }

  afterEach(async () => {
    for (const res of held) if (!res.writableEnded) res.end();
    await listener.close();
  });

  it('binds a free port when asked for port 0', async () => {
    await start(1000);
    expect(listener.port).toBeGreaterThan(0);
    expect(await get(listener.port)).toMatchObject({ status: 200, body: 'fast' });
  });

  it('finishes a request in flight, refuses new connections, then resolves', async () => {
    await start(60_000);
    const slow = get(listener.port, '/slow');
    await arrived;

    let closed = false;
    const closing = listener.close().then(() => (closed = true));
    await expect(get(listener.port)).rejects.toMatchObject({ code: 'ECONNREFUSED' });
    expect(closed).toBe(false);

    held[0]!.end('done');
    expect(await slow).toMatchObject({ status: 200, body: 'done' });
    await closing;
    expect(closed).toBe(true);
  });

  it('asks keep-alive clients to close once shutting down', async () => {
    await start(60_000);
    const agent = new Agent({ keepAlive: true });
    // A client holding a keep-alive connection (Node answers some first requests with `close` when the
    // machine is loaded: not what is tested here).
    expect((await get(listener.port, '/', agent)).status).toBe(200);
    const slow = get(listener.port, '/slow', agent);
    await arrived;
    void listener.close();
    held[0]!.end('done');
    expect((await slow).connection).toBe('close');
    agent.destroy();
  });

  it('cuts a request still running after the grace period', async () => {
    await start(20);
    const slow = get(listener.port, '/slow');
    await arrived;
    await listener.close();
    await expect(slow).rejects.toMatchObject({ code: 'ECONNRESET' });
  });

  it('close twice is the same close', async () => {
    await start(1000);
    expect(listener.close()).toBe(listener.close());
  });

  it('names the address when the port is taken', async () => {
    await start(1000);
    await expect(listen(() => {}, { port: listener.port, host: '127.0.0.1', graceMs: 10 })).rejects.toThrow(
      new ListenError('127.0.0.1', listener.port, Object.assign(new Error('x'), { code: 'EADDRINUSE' })),
    );
  });
});
