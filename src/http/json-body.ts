import type { NextFunction, Request, RequestHandler, Response } from 'express';
import { LARGE_BODY_BYTES } from './body/body-limits.js';
import { JsonDepthScanner, MAX_JSON_DEPTH } from './body/json-depth.js';
import type { LargeBodiesInFlight } from './body/large-bodies.js';
import { isJsonMediaType, isUtf8Charset } from './body/media-type.js';
import { readBody, stopReading } from './body/read-body.js';
import { httpErrors } from './problem.js';

export interface JsonBodyOptions {
  /** Bytes after decompression. */
  limit: number;
  /** The whole body must arrive within this (408). */
  timeoutMs: number;
  /** Large bodies (over 1 MiB) each caller may send at once; the key is the caller's token id. */
  largeBodies?: { inFlight: LargeBodiesInFlight; keyOf: (res: Response) => string };
}

/**
 * Reads a JSON body into `req.body`: 415 for another content type or a charset other than UTF-8;
 * 413 past `limit`, decided while the body streams in; 400 invalid_json when it nests deeper than
 * 64 levels (before anything is parsed) or does not parse; 408 when it is too slow; 429 when the
 * caller already sends its share of large bodies.
 */
export function jsonBody(options: JsonBodyOptions): RequestHandler {
  return async (req: Request, res: Response, next: NextFunction) => {
    const contentType = req.get('content-type');
    if (!isJsonMediaType(contentType)) {
      throw httpErrors.unsupportedMediaType(`send the body as application/json (got ${contentType?.slice(0, 100) ?? 'no content type'})`);
    }
    if (!isUtf8Charset(contentType!)) throw httpErrors.unsupportedMediaType('JSON bodies must be UTF-8: send charset=utf-8 or no charset');

    const large = options.largeBodies;
    const key = large?.keyOf(res);
    let holdsLargePlace = false;
    const takeLargePlace = () => {
      if (!large || holdsLargePlace) return null;
      if (!large.inFlight.enter(key!)) return httpErrors.tooManyLargeBodies(large.inFlight.max);
      holdsLargePlace = true;
      return null;
    };
    const declared = Number(req.get('content-length'));
    if (declared > LARGE_BODY_BYTES && declared <= options.limit) {
      const refused = takeLargePlace();
      if (refused) {
        res.setHeader('Retry-After', '1');
        stopReading(req, res, null, false);
        throw refused;
      }
    }

    const depth = new JsonDepthScanner();
    let raw: Buffer;
    try {
      raw = await readBody(req, res, {
        limit: options.limit,
        timeoutMs: options.timeoutMs,
        inspect: (chunk, total) => {
          if (!depth.push(chunk)) return httpErrors.invalidJson(`the body nests deeper than ${MAX_JSON_DEPTH} levels`);
          return total > LARGE_BODY_BYTES ? takeLargePlace() : null;
        },
      });
    } finally {
      if (holdsLargePlace) large!.inFlight.leave(key!);
    }
    req.body = parseJson(raw);
    next();
  };
}

/** An empty body is `{}`, so the schema lists each missing field; a UTF-8 byte order mark is allowed. */
function parseJson(raw: Buffer): unknown {
  const text = raw.toString('utf8').replace(/^\uFEFF/, '');
  if (text.trim() === '') return {};
  try {
    return JSON.parse(text);
  } catch (err) {
    // Not JSON.parse's message: it quotes the body, which may hold a token.
    const position = /position (\d+)/.exec((err as Error).message)?.[1];
    throw httpErrors.invalidJson(`the body is not valid JSON${position === undefined ? '' : ` (at byte ${position})`}`);
  }
}
