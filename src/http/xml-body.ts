import type { NextFunction, Request, RequestHandler, Response } from 'express';
import { isUtf8Charset } from './body/media-type.js';
import { readBody } from './body/read-body.js';
import { httpErrors } from './problem.js';

/** `application/xml`, `text/xml` or `application/<something>+xml`, with any parameters. */
export function isXmlContentType(header: string | undefined): boolean {
  if (!header) return false;
  const mediaType = header.split(';', 1)[0]!.trim().toLowerCase();
  return mediaType === 'application/xml' || mediaType === 'text/xml' || /^application\/[a-z0-9.!#$&^_-]+\+xml$/.test(mediaType);
}

/** Reads an XML body as UTF-8 text into `req.body`, with the limits and time bound of jsonBody. */
export function xmlBody(options: { limit: number; timeoutMs: number }): RequestHandler {
  return async (req: Request, res: Response, next: NextFunction) => {
    if (!isUtf8Charset(req.get('content-type')!)) throw httpErrors.unsupportedMediaType('XML bodies must be UTF-8: send charset=utf-8 or no charset');
    const raw = await readBody(req, res, options);
    req.body = raw.toString('utf8').replace(/^\uFEFF/, '');
    next();
  };
}
