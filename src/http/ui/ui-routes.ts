import express, { Router, type NextFunction, type Request, type RequestHandler, type Response } from 'express';
import { fileURLToPath } from 'node:url';
import { z } from 'zod';
import type { Org } from '../../domain/org.js';
import { SETTABLE_QUEUE_STATES } from '../../domain/states.js';
import type { Clock } from '../../domain/clock.js';
import type { ApiAccess } from '../../service/access/api-access.js';
import { ServiceError } from '../../service/errors.js';
import type { QueueOverviewService } from '../../service/queue/queue-overview.js';
import type { QuarantineService } from '../../service/flaky/quarantine-service.js';
import type { WebhookService } from '../../service/webhooks/webhook-service.js';
import type { QueueService } from '../../service/queue/queue-service.js';
import { jsonBody } from '../json-body.js';
import { httpErrors } from '../problem.js';
import { updateQueueSchema } from '../schemas/queue.js';
import { freezeQueueSchema, unfreezeQueueSchema } from '../schemas/merge-hold.js';
import { validate } from '../validate.js';
import { liveEvents } from './live-events.js';
import { cookieValue, csrfMatches, UiSessions, type UiSession } from './ui-sessions.js';

export const SESSION_COOKIE = 'mq_session';
export const CSRF_HEADER = 'x-csrf-token';
/** The page's files: `ui/` at the package root, two folders above both src/http/ui and dist/http/ui. */
const ASSETS_DIR = fileURLToPath(new URL('../../../ui/', import.meta.url));

export interface UiDeps {
  access: Pick<ApiAccess, 'callerForToken' | 'callerForTokenId'>;
  clock: Clock;
  queueService: QueueService;
  quarantineService: Pick<QuarantineService, 'list'>;
  overview: QueueOverviewService;
  /** The organization's webhooks and chat channels: those that keep failing are shown on the Queues screen. */
  webhooks?: Pick<WebhookService, 'list'>;
  /** The sign-in cookie gets `Secure` when the page is served over HTTPS (behind a proxy: X-Forwarded-Proto). */
  secureCookie?: (req: Request) => boolean;
  /** A whole request body must arrive within this (408 after); 60 s unless given. */
  bodyTimeoutMs?: number;
}

/** The page's JSON bodies are small: a token, a queue's state, a PR number. */
const UI_BODY_LIMIT = 16 * 1024;

const repoParam = z.string().regex(/^[^/\s]+\/[^/\s]+\/[^/\s]+$/, 'host/owner/name');
const queueQuery = z.object({ repo: repoParam, branch: z.string().min(1).max(255) });
const prQuery = queueQuery.extend({ number: z.coerce.number().int().positive() });
const signInBody = z.object({ token: z.string().min(1).max(200) });
const stateBody = z.object({ repo: repoParam, branch: z.string().min(1).max(255), state: z.enum(SETTABLE_QUEUE_STATES) });
const flakyQuery = z.object({ repo: repoParam, page: z.string().max(200).optional() });
/** Rows per page of the repository's flaky and quarantined tests. */
const FLAKY_PAGE_SIZE = 20;
const prActionBody = z.object({ repo: repoParam, branch: z.string().min(1).max(255), number: z.number().int().positive() });

/**
 * The web page at /ui/: its static files, sign-in with an API token into a session cookie, and a
 * small JSON API over the same services as /v1 (tenancy included) plus a server-sent event stream.
 */
export function uiRoutes(deps: UiDeps): Router {
  const router = Router();
  const sessions = new UiSessions({ nowMs: () => deps.clock.now().getTime() });
  // The /v1 reader: 400/413/415 problem+json for a bad body, and the body is never logged or echoed.
  const json = jsonBody({ limit: UI_BODY_LIMIT, timeoutMs: deps.bodyTimeoutMs ?? 60_000 });

  router.use((_req, res, next) => {
    res.set('Content-Security-Policy', "default-src 'self'; img-src 'self' data:; frame-ancestors 'none'; base-uri 'none'; form-action 'self'");
    res.set('X-Content-Type-Options', 'nosniff');
    res.set('Referrer-Policy', 'no-referrer');
    next();
  });

  router.post('/api/session', json, async (req, res) => {
    const { token } = parse(signInBody, req.body);
    const caller = await deps.access.callerForToken(token);
    if (!caller) throw httpErrors.unauthorized('the API token is unknown or revoked');
    const { org } = caller;
    const { id, session } = sessions.create(caller.token.id);
    const secure = deps.secureCookie?.(req) ?? req.secure;
    res.cookie(SESSION_COOKIE, id, { httpOnly: true, sameSite: 'strict', path: '/ui', secure });
    res.json({ org: org.slug, csrfToken: session.csrfToken });
  });

  const signedIn: RequestHandler = async (req, res, next) => {
    const session = sessions.find(cookieValue(req.get('cookie'), SESSION_COOKIE));
    const caller = session ? await deps.access.callerForTokenId(session.tokenId) : undefined;
    if (!session || !caller) throw new ServiceError(401, 'unauthorized', 'Unauthorized', 'sign in with an API token');
    res.locals.uiSession = session;
    res.locals.uiOrg = caller.org;
    res.locals.uiTokenName = caller.token.name;
    next();
  };
  const withCsrf: RequestHandler = (req, res, next) => {
    if (!csrfMatches(res.locals.uiSession as UiSession, req.get(CSRF_HEADER))) {
      throw new ServiceError(403, 'csrf', 'Forbidden', `the ${CSRF_HEADER} header is missing or wrong`);
    }
    next();
  };
  const orgOf = (res: Response) => res.locals.uiOrg as Org;

  router.delete('/api/session', signedIn, withCsrf, (req, res) => {
    sessions.end(cookieValue(req.get('cookie'), SESSION_COOKIE));
    res.clearCookie(SESSION_COOKIE, { path: '/ui' });
    res.json({ signedOut: true });
  });

  router.get('/api/session', signedIn, (_req, res) => {
    res.json({ org: orgOf(res).slug, csrfToken: (res.locals.uiSession as UiSession).csrfToken });
  });

  router.get('/api/queues', signedIn, async (_req, res) => {
    const org = orgOf(res);
    const [queues, hooks] = await Promise.all([deps.overview.listQueues(org), deps.webhooks ? deps.webhooks.list(org) : { webhooks: [] }]);
    // A channel that keeps failing never holds a queue back: the page is where people see it.
    const failingWebhooks = hooks.webhooks
      .filter((w) => w.failingSince !== null || w.disabledReason !== null)
      .map((w) => ({
        id: w.id,
        format: w.format,
        url: w.url,
        directMessages: w.directMessages === true,
        failingSince: w.failingSince,
        enabled: w.enabled,
        disabledReason: w.disabledReason,
      }));
    res.json({ queues, failingWebhooks });
  });

  router.get('/api/queue', signedIn, async (req, res) => {
    const ref = queueRef(parse(queueQuery, req.query));
    const org = orgOf(res);
    const [queue, details, recentlyEnded] = await Promise.all([
      deps.queueService.getQueue(org, ref),
      deps.queueService.getMergeQueueTestingDetails(org, ref),
      deps.overview.recentlyEnded(org, ref),
    ]);
    res.json({ queue, runsInFlight: details.testRuns, recentlyEnded });
  });

  router.get('/api/pull', signedIn, async (req, res) => {
    const q = parse(prQuery, req.query);
    const ref = { ...queueRef(q), pr: { number: q.number } };
    const org = orgOf(res);
    const [pullRequest, details] = await Promise.all([deps.queueService.getSubmittedPullRequest(org, ref), deps.queueService.getMergeQueueTestingDetails(org, ref)]);
    res.json({ pullRequest, runs: details.testRuns });
  });

  router.get('/api/flaky-tests', signedIn, async (req, res) => {
    const q = parse(flakyQuery, req.query);
    const org = orgOf(res);
    const input = { repo: queueRef({ ...q, branch: '' }).repo, orgUrlSlug: org.slug, pageSize: FLAKY_PAGE_SIZE, pageToken: q.page ?? '' };
    res.json(await deps.quarantineService.list(org, input, 'flaky'));
  });

  router.post('/api/queue/state', signedIn, withCsrf, json, async (req, res) => {
    const body = parse(stateBody, req.body);
    res.json({ queue: await deps.queueService.updateQueue(orgOf(res), { ...queueRef(body), state: body.state }) });
  });

  // The body and its checks are updateQueue's (POST /v1/updateQueue): the page changes settings as the API does.
  router.post('/api/queue/settings', signedIn, withCsrf, json, async (req, res) => {
    res.json({ queue: await deps.queueService.updateQueue(orgOf(res), validate(updateQueueSchema, req.body)) });
  });

  // freezeQueue and unfreezeQueue, with their bodies and checks; the freeze is recorded as by the signed-in token.
  router.post('/api/queue/freeze', signedIn, withCsrf, json, async (req, res) => {
    res.json({ queue: await deps.queueService.freezes.freeze(orgOf(res), validate(freezeQueueSchema, req.body), res.locals.uiTokenName as string) });
  });
  router.post('/api/queue/unfreeze', signedIn, withCsrf, json, async (req, res) => {
    res.json({ queue: await deps.queueService.freezes.unfreeze(orgOf(res), validate(unfreezeQueueSchema, req.body)) });
  });

  router.post('/api/pull/:action', signedIn, withCsrf, json, async (req, res) => {
    const body = parse(prActionBody, req.body);
    const ref = { ...queueRef(body), pr: { number: body.number } };
    const org = orgOf(res);
    if (req.params.action === 'cancel') return void res.json({ pullRequest: await deps.queueService.cancelPullRequest(org, ref) });
    if (req.params.action === 'restart') return void res.json({ pullRequest: await deps.queueService.restartTestsOnPullRequest(org, ref) });
    throw httpErrors.notFound(req.originalUrl);
  });

  router.get('/api/events', signedIn, (req, res) => liveEvents(req, res, () => deps.overview.versions(orgOf(res))));

  router.use(express.static(ASSETS_DIR, { index: 'index.html', fallthrough: true, maxAge: 0 }));
  router.use('/api', (req: Request, _res: Response, next: NextFunction) => next(httpErrors.notFound(req.originalUrl)));
  return router;
}

function queueRef(q: { repo: string; branch: string }) {
  const [host, owner, name] = q.repo.split('/') as [string, string, string];
  return { repo: { host, owner, name }, targetBranch: q.branch };
}

function parse<T>(schema: z.ZodType<T>, value: unknown): T {
  const result = schema.safeParse(value);
  if (result.success) return result.data;
  const errors = result.error.issues.map((i) => ({ path: i.path.join('.') || '(body)', message: i.message }));
  throw new ServiceError(400, 'invalid_request', 'Invalid request', errors.map((e) => `${e.path}: ${e.message}`).join('; '), errors);
}
