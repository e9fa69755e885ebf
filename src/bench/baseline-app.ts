import express from 'express';

/** Express 5 "hello world": the floor any express service on this machine stands on. */
export function createBaselineApp(): express.Express {
  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false);
  app.get('/hello', (_req, res) => {
    res.json({ hello: 'world' });
  });
  app.post('/echo', express.json(), (req, res) => {
    res.json(req.body);
  });
  // Parses a large JSON body and answers a summary, as setImpactedTargets does (without validation or storage).
  app.post('/count', express.json({ limit: '21mb' }), (req, res) => {
    const targets = (req.body as { impactedTargets?: unknown }).impactedTargets;
    res.json({ count: Array.isArray(targets) ? targets.length : 0 });
  });
  return app;
}
