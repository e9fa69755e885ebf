import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';

/** How long a connection stays open, unread, after a refusal's answer before it is reset. */
const LINGER_MS = 100;

/**
 * A refusal answered before the body was read (401, 404, 405, 415, ...): the answer says
 * `Connection: close` and the connection is closed once it is sent, so the rest of a body declared
 * large is never read (Node would otherwise read and drop all of it to keep the connection alive).
 */
export function closeIfBodyUnread(req: IncomingMessage, res: ServerResponse): void {
  if (req.complete || res.headersSent) return;
  res.setHeader('Connection', 'close');
  lingerWhenClosing(req);
}

/**
 * Closing a socket whose peer is still sending makes the kernel answer with a reset, and a client
 * that has not read the answer yet loses it (one connection in ten in bench:abuse's flood, though
 * that client reads while it sends). So Node's close after a `Connection: close` answer is made to
 * linger: the answer is followed by a FIN, nothing more is read (the client's writes stall once
 * the kernel's buffers fill), and the socket is destroyed LINGER_MS later.
 */
export function lingerWhenClosing(req: IncomingMessage): void {
  const socket = req.socket as Socket | null;
  if (!socket) return;
  const destroySoon = socket.destroySoon.bind(socket);
  let lingering = false;
  socket.destroySoon = () => {
    if (lingering) return;
    lingering = true;
    if (req.complete) return destroySoon();
    socket.end();
    // As Node's server pauses a socket it must not read (socket.pause() alone would not stop the
    // HTTP parser, which reads the handle itself, and the dropped body resumes it).
    const internals = socket as unknown as { _paused?: boolean; _handle?: { readStop?: () => number } };
    internals._paused = true;
    internals._handle?.readStop?.();
    const timer = setTimeout(() => socket.destroy(), LINGER_MS).unref();
    socket.once('close', () => clearTimeout(timer));
  };
}
