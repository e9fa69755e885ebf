import express from 'express';
import { XMLParser } from 'fast-xml-parser';

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
  // The floor of a JUnit upload: read the JSON, parse its XML, count the test cases (no validation,
  // identity, detection or storage).
  const xml = new XMLParser({ ignoreAttributes: false, isArray: (name) => name === 'testsuite' || name === 'testcase' });
  app.post('/junit-count', express.json({ limit: '21mb' }), (req, res) => {
    const doc = xml.parse(String((req.body as { junitXml?: unknown }).junitXml ?? '')) as { testsuites?: { testsuite?: { testcase?: unknown[] }[] } };
    const tests = (doc.testsuites?.testsuite ?? []).reduce((n, s) => n + (s.testcase?.length ?? 0), 0);
    res.json({ tests });
  });
  return app;
}
