import type { ErrorRequestHandler, RequestHandler } from 'express';
import type { Logger } from 'pino';
import { ServiceError } from '../service/errors.js';
import { closeIfBodyUnread } from './body/unread-body.js';
import { httpErrors, sendProblem } from './problem.js';

/** Unknown path: 404 not_found. */
export const notFoundHandler: RequestHandler = (req) => {
  throw httpErrors.notFound(req.path);
};

/**
 * Every error as problem+json; anything unexpected is logged and answered 500 without details. A
 * library's own 4xx (http-errors, e.g. a static file's bad range) is answered with its status, and its
 * message only: such errors may carry the request body (`err.body`), which is never logged or sent.
 */
export function errorHandler(logger: Logger): ErrorRequestHandler {
  return (err: unknown, req, res, next) => {
    if (res.headersSent) {
      next(err);
      return;
    }
    closeIfBodyUnread(req, res);
    if (err instanceof ServiceError) {
      if (err.status >= 500) logger.warn({ err, method: req.method, path: req.path }, 'request failed');
      if (err.status === 503) res.set('Retry-After', '1');
      sendProblem(res, err);
      return;
    }
    const status = clientErrorStatus(err);
    if (status !== null) {
      sendProblem(res, new ServiceError(status, 'invalid_request', 'Invalid request', 'the request could not be handled', [{ path: '(request)', message: 'could not be handled' }]));
      return;
    }
    logger.error({ err: withoutBody(err), method: req.method, path: req.path }, 'unhandled error');
    sendProblem(res, httpErrors.internal());
  };
}

function clientErrorStatus(err: unknown): number | null {
  const status = (err as { status?: unknown } | null)?.status;
  return typeof status === 'number' && status >= 400 && status < 500 ? status : null;
}

/** The error's type, message and stack: never the fields a library attached (bodies, requests). */
function withoutBody(err: unknown): unknown {
  if (!(err instanceof Error)) return { message: String(err).slice(0, 200) };
  return { type: err.name, message: err.message, stack: err.stack };
}
