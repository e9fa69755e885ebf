import express, { type Router } from 'express';
import type { Logger } from 'pino';
import { ServiceError } from '../../service/errors.js';
import type { Readiness } from '../../service/readiness.js';
import { methodNotAllowed } from './method-not-allowed.js';

/** GET /healthz (the process answers) and GET /readyz (the store answers); no token, no data. */
export function healthRoutes(deps: { readiness: Readiness; logger: Logger }): Router {
  const router = express.Router();
  router
    .route('/healthz')
    .get((_req, res) => {
      res.status(200).json({ status: 'ok' });
    })
    .all(methodNotAllowed(['GET', 'HEAD']));
  router
    .route('/readyz')
    .get(async (_req, res) => {
      try {
        await deps.readiness.check();
      } catch (err) {
        deps.logger.warn({ err }, 'readiness check: the store does not answer');
        throw new ServiceError(503, 'not_ready', 'Not ready', 'the store does not answer');
      }
      res.status(200).json({ status: 'ready' });
    })
    .all(methodNotAllowed(['GET', 'HEAD']));
  return router;
}
