import express, { type NextFunction, type Request, type RequestHandler, type Response } from 'express';
import { ServiceError } from '../service/errors.js';
import { httpErrors } from './problem.js';

/** api.md: request bodies are at most 20 MiB. */
export const MAX_BODY_BYTES = 20 * 1024 * 1024;

/** `application/json` or `application/<something>+json`, with any parameters (charset). */
export function isJsonContentType(header: string | undefined): boolean {
  if (!header) return false;
  const mediaType = header.split(';', 1)[0]!.trim().toLowerCase();
  return mediaType === 'application/json' || /^application\/[a-z0-9.!#$&^_-]+\+json$/.test(mediaType);
}

/**
 * Reads a JSON body of at most `limit` bytes: 415 for another content type; 413 at once when the
 * declared length is over the limit (nothing is read), and as soon as a chunked or compressed body
 * passes it (the rest is discarded, never buffered); 400 invalid_json when it does not parse.
 */
export function jsonBody(limit: number = MAX_BODY_BYTES): RequestHandler {
  const parse = express.json({ limit, strict: false, type: () => true });
  return (req: Request, res: Response, next: NextFunction) => {
    if (!isJsonContentType(req.get('content-type'))) {
      throw httpErrors.unsupportedMediaType(`send the body as application/json (got ${req.get('content-type') ?? 'no content type'})`);
    }
    const declared = Number(req.get('content-length'));
    if (Number.isFinite(declared) && declared > limit) throw httpErrors.payloadTooLarge(limit);
    parse(req, res, (err?: unknown) => (err ? next(translateBodyError(err, limit)) : next()));
  };
}

/** body-parser's errors as problems; anything it did not classify stays a client error (400). */
export function translateBodyError(err: unknown, limit: number): ServiceError {
  const type = (err as { type?: string }).type;
  switch (type) {
    case 'entity.too.large':
      return httpErrors.payloadTooLarge(limit);
    case 'entity.parse.failed':
      return httpErrors.invalidJson(`the body is not valid JSON: ${(err as Error).message}`);
    case 'charset.unsupported':
    case 'encoding.unsupported':
      return httpErrors.unsupportedMediaType((err as Error).message);
    default:
      return new ServiceError(400, 'invalid_request', 'Invalid request', `the body could not be read: ${(err as Error).message ?? 'unknown error'}`);
  }
}
