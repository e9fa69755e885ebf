import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface SlackApiCall {
  /** The Web API method, from the path: `chat.postMessage`. */
  method: string;
  authorization: string;
  contentType: string;
  /** The exact body as sent (form-encoded, as Slack's SDK sends it). */
  body: string;
  /** What Slack answered. */
  answered: { status: number; body: Record<string, unknown> };
}

/** What the stand-in answers a call for a member: Slack's `ok:false` with a code, or a 429 with Retry-After (seconds), once. */
export type SlackAnswer = { error: string } | { rateLimitedOnceFor: number };

/**
 * A local stand-in for Slack's Web API (https://slack.com/api/) on 127.0.0.1: records every call's
 * exact body and answers as Slack does — `{"ok":true,…}` for chat.postMessage, `{"ok":false,
 * "error":…}` with HTTP 200 for an error, 429 with Retry-After when rate limited.
 */
export class SlackApiStandIn {
  readonly calls: SlackApiCall[] = [];
  /** By member id (the `channel` of chat.postMessage). */
  readonly answers = new Map<string, SlackAnswer>();

  private constructor(private readonly server: Server) {}

  static async start(): Promise<SlackApiStandIn> {
    const server = createServer();
    const standIn = new SlackApiStandIn(server);
    server.on('request', (req, res) => void standIn.handle(req, res));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return standIn;
  }

  /** What MERGEQ_SLACK_API_URL would be. */
  get apiUrl(): string {
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}/api/`;
  }

  /** The form fields of a call's body. */
  static fields(call: SlackApiCall): Record<string, string> {
    return Object.fromEntries(new URLSearchParams(call.body));
  }

  async close(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const body = Buffer.concat(chunks).toString('utf8');
    const channel = new URLSearchParams(body).get('channel') ?? '';
    const answer = this.answers.get(channel);
    let status = 200;
    let json: Record<string, unknown> = { ok: true, channel: `D${channel.slice(1)}`, ts: `${1_700_000_000 + this.calls.length}.000100` };
    const headers: Record<string, string> = { 'content-type': 'application/json; charset=utf-8' };
    if (answer && 'error' in answer) json = { ok: false, error: answer.error };
    if (answer && 'rateLimitedOnceFor' in answer) {
      this.answers.delete(channel);
      status = 429;
      json = { ok: false, error: 'ratelimited' };
      headers['retry-after'] = String(answer.rateLimitedOnceFor);
    }
    this.calls.push({
      method: (req.url ?? '').replace(/^\/api\//, ''),
      authorization: String(req.headers.authorization ?? ''),
      contentType: String(req.headers['content-type'] ?? ''),
      body,
      answered: { status, body: json },
    });
    res.writeHead(status, headers).end(JSON.stringify(json));
  }
}
