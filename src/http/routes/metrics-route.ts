import type { Request, RequestHandler, Response } from 'express';
import { repoKey } from '../../domain/repo.js';
import type { Clock } from '../../domain/clock.js';
import { assertOwnsRepo } from '../../service/access/tenancy.js';
import { callerOf } from '../auth.js';
import { metricsQuerySchema } from '../schemas/metrics.js';
import { validate } from '../validate.js';

/** api.md 4.1: the Prometheus text exposition format, version 0.0.4. */
export const METRICS_CONTENT_TYPE = 'text/plain; version=0.0.4; charset=utf-8';

/** The Prometheus text of an organization's queues (or one repository's): `metricsRenderer` of src/metrics. */
export type RenderMetrics = (orgId: string, filter: { repoKey?: string }, now: Date) => Promise<string>;

/** GET /v1/getMergeQueueMetrics?repo=owner/name&repoHost=github.com (after requireToken). */
export function metricsHandler(deps: { clock: Clock; renderMetrics: RenderMetrics }): RequestHandler {
  return async (req: Request, res: Response) => {
    const query = validate(metricsQuerySchema, req.query);
    const { org } = callerOf(res);
    const filter: { repoKey?: string } = {};
    if (query.repo !== undefined && query.repoHost !== undefined) {
      const [owner = '', name = ''] = query.repo.split('/');
      const repo = { host: query.repoHost, owner, name };
      assertOwnsRepo(org, repo);
      filter.repoKey = repoKey(repo);
    }
    const text = await deps.renderMetrics(org.id, filter, deps.clock.now());
    // Set directly: express would reorder the parameters of this exact content type.
    res.status(200).setHeader('Content-Type', METRICS_CONTENT_TYPE);
    res.end(text);
  };
}
