import express, { type NextFunction, type Request, type RequestHandler, type Response } from 'express';
import { httpErrors } from './problem.js';
import { translateBodyError } from './json-body.js';

/** `application/xml`, `text/xml` or `application/<something>+xml`, with any parameters. */
export function isXmlContentType(header: string | undefined): boolean {
  if (!header) return false;
  const mediaType = header.split(';', 1)[0]!.trim().toLowerCase();
  return mediaType === 'application/xml' || mediaType === 'text/xml' || /^application\/[a-z0-9.!#$&^_-]+\+xml$/.test(mediaType);
}

/** Reads an XML body as text, at most `limit` bytes, with the same 413 rules as jsonBody. */
export function xmlBody(limit: number): RequestHandler {
  const read = express.text({ limit, type: () => true, defaultCharset: 'utf-8' });
  return (req: Request, res: Response, next: NextFunction) => {
    const declared = Number(req.get('content-length'));
    if (Number.isFinite(declared) && declared > limit) throw httpErrors.payloadTooLarge(limit);
    read(req, res, (err?: unknown) => (err ? next(translateBodyError(err, limit)) : next()));
  };
}
