import express, { type Request, type RequestHandler, type Response, type Router } from 'express';
import type { Logger } from 'pino';
import { systemClock, type Clock } from '../engine/clock.js';
import { FlakyTestService } from '../service/flaky-test-service.js';
import type { QuarantineService } from '../service/quarantine-service.js';
import type { QueueService } from '../service/queue-service.js';
import type { Store } from '../store/store.js';
import { callerOf, requireToken } from './auth.js';
import { errorHandler, notFoundHandler } from './error-handler.js';
import { jsonBody, MAX_BODY_BYTES } from './json-body.js';
import { buildOpenApiDocument } from './openapi.js';
import { OPERATIONS } from './operations.js';
import { DEFAULT_RATE_LIMIT, rateLimit, type RateLimitOptions } from './rate-limit.js';
import { requestLog } from './request-log.js';
import { flakyUploadHandlers } from './routes/flaky-upload-route.js';
import { healthRoutes } from './routes/health-routes.js';
import { methodNotAllowed } from './routes/method-not-allowed.js';
import { metricsHandler, type RenderMetrics } from './routes/metrics-route.js';

export interface HttpDeps {
  store: Store;
  queueService: QueueService;
  quarantineService: Pick<QuarantineService, 'list'>;
  /** Built from the store and clock when not given. */
  flakyTestService?: FlakyTestService;
  /** `renderMetrics` of src/metrics/queue-metrics.ts. */
  renderMetrics: RenderMetrics;
  logger: Logger;
  /** Time for the rate limiter, token last-use and metrics; the system clock unless a test fixes it. */
  clock?: Clock;
  /** Per-token rate limit; default 50 requests/s sustained, bursts of 200. `false` turns it off. */
  rateLimit?: RateLimitOptions | false;
  /** Mounted at /sandbox (the sandbox git host's UI and API), when the sandbox host is in use. */
  sandboxRouter?: Router;
  /**
   * Mounted at the root before the API routes, e.g. the GitHub App's webhook middleware: it answers
   * the paths it owns (`/api/github/webhooks`) and calls `next()` for every other request. It sees
   * the raw body: no body parser runs before it.
   */
  webhooks?: RequestHandler;
}

/** The REST API: /v1 operations, /healthz, /readyz, /v1/openapi.json. */
export function createHttpApp(deps: HttpDeps): express.Express {
  const clock = deps.clock ?? systemClock;
  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false);

  app.use(requestLog(deps.logger));
  app.use(healthRoutes(deps));
  if (deps.webhooks) app.use(deps.webhooks);
  if (deps.sandboxRouter) app.use('/sandbox', deps.sandboxRouter);
  app.use('/v1', v1Routes(deps, clock));

  app.use(notFoundHandler);
  app.use(errorHandler(deps.logger));
  return app;
}

function v1Routes(deps: HttpDeps, clock: Clock): Router {
  const router = express.Router();
  const authenticate: RequestHandler[] = [requireToken({ store: deps.store, clock, logger: deps.logger })];
  const limits = deps.rateLimit === undefined ? DEFAULT_RATE_LIMIT : deps.rateLimit;
  if (limits) authenticate.push(rateLimit(limits, clock));
  const flakyTestService = deps.flakyTestService ?? new FlakyTestService({ store: deps.store, clock });
  const services = { queueService: deps.queueService, quarantineService: deps.quarantineService, flakyTestService };
  const readBody = jsonBody(MAX_BODY_BYTES);

  for (const op of OPERATIONS) {
    router
      .route(op.path)
      .post(...authenticate, readBody, async (req: Request, res: Response) => {
        const { org, token } = callerOf(res);
        const result = await op.run(services, org, req.body, token);
        res.status(200).json(result);
      })
      .all(methodNotAllowed(['POST']));
  }

  router
    .route('/flaky-tests/upload')
    .post(...authenticate, ...flakyUploadHandlers(flakyTestService))
    .all(methodNotAllowed(['POST']));

  router
    .route('/getMergeQueueMetrics')
    .get(...authenticate, metricsHandler({ store: deps.store, clock, renderMetrics: deps.renderMetrics }))
    .all(methodNotAllowed(['GET', 'HEAD']));

  const openApi = JSON.stringify(buildOpenApiDocument(OPERATIONS));
  router
    .route('/openapi.json')
    .get((_req, res) => {
      res.status(200).type('application/json').send(openApi);
    })
    .all(methodNotAllowed(['GET', 'HEAD']));

  return router;
}
