import type { Request, RequestHandler } from 'express';
import { httpErrors } from '../problem.js';

/** For a known path asked with another method: 405 with the `Allow` header. */
export function methodNotAllowed(allowed: string[]): RequestHandler {
  return (req: Request, res) => {
    res.set('Allow', allowed.join(', '));
    throw httpErrors.methodNotAllowed(req.method, allowed);
  };
}
