import { createHmac } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** ok: 204; fail: 500; hang: read the request and never answer. */
export type ReceiverMode = 'ok' | 'fail' | 'hang';

export interface ReceivedRequest {
  id: string;
  timestamp: string;
  signature: string;
  body: string;
  /** The status answered; null while (or because) it hung. */
  answered: number | null;
}

/**
 * The test receivers listen on loopback, which mergeq refuses by default (docs/webhooks.md): the
 * tests that deliver to them allow it, as MERGEQ_WEBHOOK_ALLOWED_NETWORKS would.
 */
export const LOOPBACK_NETWORKS = ['127.0.0.0/8', '::1/128'];

/** A real HTTP receiver on 127.0.0.1 that records every request, for the outbound webhook tests. */
export class WebhookReceiver {
  mode: ReceiverMode = 'ok';
  readonly requests: ReceivedRequest[] = [];
  private readonly hanging = new Set<ServerResponse>();

  private constructor(private readonly server: Server) {}

  static async start(): Promise<WebhookReceiver> {
    const server = createServer();
    const receiver = new WebhookReceiver(server);
    server.on('request', (req, res) => void receiver.handle(req, res));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return receiver;
  }

  get url(): string {
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}/hooks`;
  }

  /** Requests answered 2xx, first per webhook-id, in arrival order. */
  accepted(): ReceivedRequest[] {
    const seen = new Set<string>();
    return this.requests.filter((r) => r.answered !== null && r.answered < 300 && !seen.has(r.id) && seen.add(r.id));
  }

  async close(): Promise<void> {
    for (const res of this.hanging) res.destroy();
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const header = (name: string) => String(req.headers[name] ?? '');
    const record: ReceivedRequest = {
      id: header('webhook-id'),
      timestamp: header('webhook-timestamp'),
      signature: header('webhook-signature'),
      body: Buffer.concat(chunks).toString('utf8'),
      answered: null,
    };
    this.requests.push(record);
    if (this.mode === 'hang') {
      this.hanging.add(res);
      return;
    }
    record.answered = this.mode === 'ok' ? 204 : 500;
    res.writeHead(record.answered).end();
  }
}

/** The Standard Webhooks check, written out here rather than taken from src/: HMAC-SHA256 of id.timestamp.body. */
export function signatureVerifies(secret: string, r: ReceivedRequest): boolean {
  const key = Buffer.from(secret.replace(/^whsec_/, ''), 'base64');
  const expected = createHmac('sha256', key).update(`${r.id}.${r.timestamp}.${r.body}`).digest('base64');
  return r.signature.split(' ').includes(`v1,${expected}`);
}
