import type { NextFunction, Request, RequestHandler, Response } from 'express';
import type { Logger } from 'pino';
import type { Caller } from './auth.js';

/**
 * One log line per request: method, path (no query string), status, duration, and the calling
 * organization when known. Headers are never logged, so neither is the token.
 */
export function requestLog(logger: Logger): RequestHandler {
  return (req: Request, res: Response, next: NextFunction) => {
    const started = process.hrtime.bigint();
    let logged = false;
    const log = (aborted: boolean) => {
      if (logged) return;
      logged = true;
      const ms = Number(process.hrtime.bigint() - started) / 1e6;
      const caller = res.locals.caller as Caller | undefined;
      logger.info(
        {
          method: req.method,
          path: req.originalUrl.split('?', 1)[0],
          status: res.statusCode,
          ms: Math.round(ms * 10) / 10,
          ...(caller ? { org: caller.org.slug, tokenId: caller.token.id } : {}),
          ...(aborted ? { aborted: true } : {}),
        },
        'request',
      );
    };
    res.on('finish', () => log(false));
    res.on('close', () => log(!res.writableFinished));
    next();
  };
}
