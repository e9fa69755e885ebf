import type { ErrorRequestHandler, RequestHandler } from 'express';
import type { Logger } from 'pino';
import { ServiceError } from '../service/errors.js';
import { httpErrors, sendProblem } from './problem.js';

/** Unknown path: 404 not_found. */
export const notFoundHandler: RequestHandler = (req) => {
  throw httpErrors.notFound(req.path);
};

/** Every error as problem+json; anything unexpected is logged and answered 500 without details. */
export function errorHandler(logger: Logger): ErrorRequestHandler {
  return (err: unknown, req, res, next) => {
    if (res.headersSent) {
      next(err);
      return;
    }
    if (err instanceof ServiceError) {
      if (err.status >= 500) logger.warn({ err, method: req.method, path: req.path }, 'request failed');
      if (err.status === 503) res.set('Retry-After', '1');
      sendProblem(res, err);
      return;
    }
    logger.error({ err, method: req.method, path: req.path }, 'unhandled error');
    sendProblem(res, httpErrors.internal());
  };
}
