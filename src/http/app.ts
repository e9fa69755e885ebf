import express, { type Request, type RequestHandler, type Response, type Router } from 'express';
import type { Logger } from 'pino';
import { systemClock, type Clock } from '../domain/clock.js';
import type { ApiAccess } from '../service/access/api-access.js';
import type { FlakyTestService } from '../service/flaky/flaky-test-service.js';
import type { QuarantineService } from '../service/flaky/quarantine-service.js';
import type { QueueListing } from '../service/queue/queue-listing.js';
import type { QueueOverviewService } from '../service/queue/queue-overview.js';
import type { QueueService } from '../service/queue/queue-service.js';
import type { Readiness } from '../service/readiness.js';
import { callerOf, requireToken } from './auth.js';
import { errorHandler, notFoundHandler } from './error-handler.js';
import { bodyLimitOf } from './body/body-limits.js';
import { LargeBodiesInFlight } from './body/large-bodies.js';
import { jsonBody } from './json-body.js';
import { sendJson } from './json-response.js';
import { buildOpenApiDocument } from './openapi.js';
import { mergeqYmlJsonSchema } from './schemas/mergeq-yml.js';
import { OPERATIONS } from './operations.js';
import { addressRateLimit, DEFAULT_RATE_LIMIT, rateLimit, type RateLimitOptions } from './rate-limit.js';
import { requestLog } from './request-log.js';
import { cliRoute } from './routes/cli-route.js';
import { flakyUploadHandlers } from './routes/flaky-upload-route.js';
import { healthRoutes } from './routes/health-routes.js';
import { methodNotAllowed } from './routes/method-not-allowed.js';
import { metricsHandler, type RenderMetrics } from './routes/metrics-route.js';
import { uiRoutes } from './ui/ui-routes.js';
import type { WebhookService } from '../service/webhooks/webhook-service.js';
import type { QueueTemplateService } from '../service/queue/queue-template-service.js';

/** The services come from `apiServices` (src/service/api-services.ts) plus the QueueService: the app never sees the store. */
export interface HttpDeps {
  access: ApiAccess;
  readiness: Readiness;
  overview: QueueOverviewService;
  queueListing: Pick<QueueListing, 'list'>;
  queueService: QueueService;
  quarantineService: Pick<QuarantineService, 'list'>;
  flakyTestService: FlakyTestService;
  webhookService: WebhookService;
  queueTemplates: QueueTemplateService;
  /** `metricsRenderer(metricsService)` of src/metrics/queue-metrics.ts. */
  renderMetrics: RenderMetrics;
  logger: Logger;
  /** Time for the rate limiter, token last-use and metrics; the system clock unless a test fixes it. */
  clock?: Clock;
  /** Per-token rate limit; default 50 requests/s sustained, bursts of 200. `false` turns it off. */
  rateLimit?: RateLimitOptions | false;
  /** Bounds on slow and large request bodies; DEFAULT_BODY_BOUNDS unless given. */
  bodyBounds?: BodyBounds;
  /**
   * Mounted at /sandbox (the sandbox git host's API), when the sandbox host is in use; behind the
   * same token as /v1 (its routes check the repository against `callerOf(res).org`).
   */
  sandboxRouter?: Router;
  /**
   * Mounted at the root before the API routes, e.g. the GitHub App's webhook middleware: it answers
   * the paths it owns (`/api/github/webhooks`) and calls `next()` for every other request. It sees
   * the raw body: no body parser runs before it.
   */
  webhooks?: RequestHandler;
}

/** Where GitHub delivers the App's webhooks. */
export const WEBHOOKS_PATH = '/api/github/webhooks';

export interface BodyBounds {
  /** A whole request body must arrive within this (408 after). */
  timeoutMs: number;
  /** Bodies over 1 MiB one token may be sending at the same time (429 for more). */
  largePerToken: number;
}

export const DEFAULT_BODY_BOUNDS: BodyBounds = { timeoutMs: 60_000, largePerToken: 2 };

/** The REST API: /v1 operations, /healthz, /readyz, /v1/openapi.json; the web page at /ui/ (where / sends a browser); the single-file CLI at /cli/mergeq.mjs. */
export function createHttpApp(deps: HttpDeps): express.Express {
  const clock = deps.clock ?? systemClock;
  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false);

  const limits = deps.rateLimit === undefined ? DEFAULT_RATE_LIMIT : deps.rateLimit;
  const byAddress = limits ? addressRateLimit(limits, clock) : null;
  const authenticate: RequestHandler[] = [requireToken({ access: deps.access, clock, logger: deps.logger, onRejected: byAddress?.take })];
  if (limits) authenticate.push(rateLimit(limits, clock));

  app.use(requestLog(deps.logger));
  app.use(healthRoutes(deps));
  if (deps.webhooks) {
    if (byAddress) app.use(WEBHOOKS_PATH, byAddress.limit);
    app.use(deps.webhooks);
  }
  if (deps.sandboxRouter) app.use('/sandbox', ...authenticate, deps.sandboxRouter);
  app.use('/v1', v1Routes(deps, authenticate));
  app.use(cliRoute(byAddress ? [byAddress.limit] : []));
  app.use(
    '/ui',
    ...(byAddress ? [byAddress.limit] : []),
    uiRoutes({
      access: deps.access,
      clock,
      queueService: deps.queueService,
      quarantineService: deps.quarantineService,
      overview: deps.overview,
      webhooks: deps.webhookService,
      bodyTimeoutMs: (deps.bodyBounds ?? DEFAULT_BODY_BOUNDS).timeoutMs,
    }),
  );

  // Relative, so that a proxy serving the service under a path prefix keeps it.
  app.get('/', (_req, res) => res.redirect(302, 'ui/'));
  app.use(notFoundHandler);
  app.use(errorHandler(deps.logger));
  return app;
}

function v1Routes(deps: HttpDeps, authenticate: RequestHandler[]): Router {
  const clock = deps.clock ?? systemClock;
  const router = express.Router();
  const { flakyTestService, webhookService, queueTemplates } = deps;
  const services = { queueService: deps.queueService, quarantineService: deps.quarantineService, queueListing: deps.queueListing, flakyTestService, webhookService, queueTemplates };
  const bounds = deps.bodyBounds ?? DEFAULT_BODY_BOUNDS;
  const largeBodies = { inFlight: new LargeBodiesInFlight(bounds.largePerToken), keyOf: (res: Response) => callerOf(res).token.id };
  const readBody = (path: string) => jsonBody({ limit: bodyLimitOf(path), timeoutMs: bounds.timeoutMs, largeBodies });

  for (const op of OPERATIONS) {
    router
      .route(op.path)
      .post(...authenticate, readBody(op.path), async (req: Request, res: Response) => {
        const { org, token } = callerOf(res);
        sendJson(res, await op.run(services, org, req.body, token));
      })
      .all(methodNotAllowed(['POST']));
  }

  router
    .route('/flaky-tests/upload')
    .post(...authenticate, ...flakyUploadHandlers(flakyTestService, { limit: bodyLimitOf('/flaky-tests/upload'), timeoutMs: bounds.timeoutMs, largeBodies }))
    .all(methodNotAllowed(['POST']));

  router
    .route('/getMergeQueueMetrics')
    .get(...authenticate, metricsHandler({ clock, renderMetrics: deps.renderMetrics }))
    .all(methodNotAllowed(['GET', 'HEAD']));

  const openApi = JSON.stringify(buildOpenApiDocument(OPERATIONS));
  router
    .route('/openapi.json')
    .get((_req, res) => {
      res.status(200).type('application/json').send(openApi);
    })
    .all(methodNotAllowed(['GET', 'HEAD']));

  // For editors validating .github/mergeq.yml (docs/mergeq-yml.md): public, like the OpenAPI document.
  const fileSchema = JSON.stringify(mergeqYmlJsonSchema());
  router
    .route('/schemas/mergeq.yml.json')
    .get((_req, res) => void res.status(200).type('application/schema+json').send(fileSchema))
    .all(methodNotAllowed(['GET', 'HEAD']));

  return router;
}
