import type { IncomingMessage, ServerResponse } from 'node:http';

/**
 * A refusal answered before the body was read (401, 404, 405, 415, ...): the answer says
 * `Connection: close` and the connection is closed once it is sent, so the rest of a body declared
 * large is never read (Node would otherwise read and drop all of it to keep the connection alive).
 * A client that reads only after sending its whole body may see the connection reset instead of the
 * answer; one that reads while it sends (curl, browsers, Node) gets the answer.
 */
export function closeIfBodyUnread(req: IncomingMessage, res: ServerResponse): void {
  if (req.complete || res.headersSent) return;
  res.setHeader('Connection', 'close');
  res.once('finish', () => {
    if (!req.complete) req.socket?.destroySoon();
  });
}
