import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Readable } from 'node:stream';
import { createBrotliDecompress, createGunzip, createInflate } from 'node:zlib';
import type { ServiceError } from '../../service/errors.js';
import { httpErrors } from '../problem.js';
import { lingerWhenClosing } from './unread-body.js';

export interface ReadBodyOptions {
  /** Bytes after decompression. */
  limit: number;
  /** The whole body must arrive within this; else 408 and the connection is closed. */
  timeoutMs: number;
  /** Sees each decoded chunk and the total so far; an error stops the read with that error. */
  inspect?: (chunk: Buffer, total: number) => ServiceError | null;
}

const DECODERS: Record<string, () => NodeJS.ReadWriteStream> = {
  gzip: createGunzip,
  'x-gzip': createGunzip,
  deflate: createInflate,
  br: createBrotliDecompress,
};

/**
 * Reads a request body while it streams: 413 as soon as it passes `limit` (or at once when the
 * declared length does), 408 when it is not complete after `timeoutMs`. A refused body is never
 * kept: the rest of it is read and discarded, and the connection closes after the answer.
 */
export function readBody(req: IncomingMessage, res: ServerResponse, options: ReadBodyOptions): Promise<Buffer> {
  const encoding = (req.headers['content-encoding'] ?? 'identity').trim().toLowerCase();
  const decoder = encoding === 'identity' ? null : DECODERS[encoding];
  if (decoder === undefined) {
    return Promise.reject(httpErrors.unsupportedMediaType(`Content-Encoding ${encoding} is not supported (use gzip, deflate or br)`, 'Content-Encoding'));
  }
  const declared = Number(req.headers['content-length']);
  if (!decoder && Number.isFinite(declared) && declared > options.limit) {
    stopReading(req, res, null, false);
    return Promise.reject(httpErrors.payloadTooLarge(options.limit));
  }

  return new Promise<Buffer>((resolve, reject) => {
    const source: Readable = decoder ? (req.pipe(decoder()) as unknown as Readable) : req;
    const chunks: Buffer[] = [];
    let total = 0;
    let settled = false;
    let answered = false;

    const answer = (err: ServiceError | null) => {
      if (answered) return;
      answered = true;
      clearTimeout(deadline);
      if (err) reject(err);
      else resolve(Buffer.concat(chunks, total));
    };
    const finish = (err: ServiceError | null) => {
      if (settled) return;
      settled = true;
      source.off('data', onData);
      source.off('end', onEnd);
      source.off('error', onError);
      req.off('aborted', onAborted);
      if (!err) return answer(null);
      chunks.length = 0;
      const tooSlow = err.status === 408;
      stopReading(req, res, source === req ? null : source, tooSlow);
      if (tooSlow || req.complete || req.destroyed) return answer(err);
      // Like body-parser: answer once the rest has been dropped, so a client that sends its whole
      // body before reading the answer gets it too. But drop at most `limit` more bytes: past that,
      // answer at once and close the connection (a client reading while it sends still sees why).
      let dropped = 0;
      const answerNow = () => {
        req.off('data', countDropped);
        answer(err);
      };
      const countDropped = (chunk: Buffer) => {
        dropped += chunk.length;
        if (dropped <= options.limit) return;
        if (!res.headersSent) res.setHeader('Connection', 'close');
        answerNow();
      };
      req.on('data', countDropped);
      req.once('end', answerNow);
      req.once('close', answerNow);
    };
    const onData = (chunk: Buffer) => {
      total += chunk.length;
      if (total > options.limit) return finish(httpErrors.payloadTooLarge(options.limit));
      const problem = options.inspect?.(chunk, total) ?? null;
      if (problem) return finish(problem);
      chunks.push(chunk);
    };
    const onEnd = () => finish(null);
    const onError = (err: Error) => finish(httpErrors.invalidBody(`the body could not be read: ${err.message}`));
    const onAborted = () => finish(httpErrors.invalidBody('the client stopped sending the body'));
    const deadline = setTimeout(() => {
      const late = httpErrors.requestTimeout(options.timeoutMs);
      if (!settled) return finish(late);
      if (!res.headersSent) res.setHeader('Connection', 'close');
      answer(late);
    }, options.timeoutMs);

    source.on('data', onData);
    source.once('end', onEnd);
    source.once('error', onError);
    req.once('aborted', onAborted);
  });
}

/**
 * After a refusal: the rest of the body is read and dropped, never buffered. A client still sending
 * when the answer has gone (too slow, or refused on its headers alone) is disconnected after it.
 */
export function stopReading(req: IncomingMessage, res: ServerResponse, decoder: Readable | null, closeConnection: boolean): void {
  if (decoder) {
    req.unpipe(decoder as unknown as NodeJS.WritableStream);
    decoder.destroy();
  }
  if (closeConnection && !res.headersSent) res.setHeader('Connection', 'close');
  req.on('data', discard);
  req.resume();
  lingerWhenClosing(req);
  res.once('finish', () => {
    if (!req.complete) req.socket?.destroySoon();
  });
}

function discard(): void {}
