import type { NextFunction, Request, RequestHandler, Response } from 'express';
import type { ApiToken } from '../domain/org.js';
import type { Clock } from '../domain/clock.js';
import type { ApiAccess, Caller } from '../service/access/api-access.js';
import type { Logger } from 'pino';
import { httpErrors } from './problem.js';

export const TOKEN_HEADER = 'x-api-token';
/** Last use is recorded at most this often per token: a write per request would cost more than the request. */
const TOUCH_INTERVAL_MS = 60_000;

export type { Caller };

/** Who is calling: what `requireToken` found for the handlers after it. */
export function callerOf(res: Response): Caller {
  const caller = res.locals.caller as Caller | undefined;
  if (!caller) throw new Error('callerOf used on a route without requireToken');
  return caller;
}

/**
 * `x-api-token` → hash → stored token → organization. Runs before the body is read, so an
 * unauthenticated client cannot make the server buffer anything. The token itself is never logged.
 */
export function requireToken(deps: {
  access: Pick<ApiAccess, 'callerForToken' | 'recordUse'>;
  clock: Clock;
  logger: Logger;
  /** Counts a request without a valid token against its address: seconds to wait when over the limit. */
  onRejected?: (req: Request) => number;
}): RequestHandler {
  const lastTouched = new Map<string, number>();

  const touch = (token: ApiToken, nowMs: number) => {
    const last = Math.max(lastTouched.get(token.id) ?? 0, token.lastUsedAt ? Date.parse(token.lastUsedAt) : 0);
    if (nowMs - last < TOUCH_INTERVAL_MS) return;
    lastTouched.set(token.id, nowMs);
    deps.access.recordUse(token.id, new Date(nowMs)).catch((err: unknown) => {
      deps.logger.warn({ err, tokenId: token.id }, 'could not record the last use of a token');
    });
  };

  const reject = (req: Request, res: Response, detail: string) => {
    const waitSeconds = deps.onRejected?.(req) ?? 0;
    if (waitSeconds > 0) {
      res.set('Retry-After', String(waitSeconds));
      return httpErrors.rateLimited(waitSeconds, 'client address');
    }
    return httpErrors.unauthorized(detail);
  };

  return async (req: Request, res: Response, next: NextFunction) => {
    const presented = req.get(TOKEN_HEADER);
    if (!presented) throw reject(req, res, `the ${TOKEN_HEADER} header is required`);
    const caller = await deps.access.callerForToken(presented);
    if (!caller) throw reject(req, res, 'the API token is unknown or revoked');
    res.locals.caller = caller;
    touch(caller.token, deps.clock.now().getTime());
    next();
  };
}
