import fc from 'fast-check';
import request from 'supertest';
import { ACME_REPO, post, prRef, queueRef } from './helpers/requests.js';
import { createTestApp, type TestApp } from './helpers/test-app.js';

/**
 * Nothing a client sends produces a 500: random JSON bodies, and valid bodies with one part
 * replaced by junk, to every POST route. Every 4xx is problem+json with a code.
 */

const VALID: Record<string, () => Record<string, unknown>> = {
  submitPullRequest: () => ({ ...prRef(1), priority: 'high', noBatch: false }),
  cancelPullRequest: () => prRef(1),
  restartTestsOnPullRequest: () => prRef(1),
  getSubmittedPullRequest: () => prRef(1),
  setImpactedTargets: () => ({ ...queueRef(), pr: { number: 1, sha: 'abc' }, impactedTargets: ['//a', '//b'] }),
  getMergeQueueTestingDetails: () => ({ ...queueRef(), testRunId: 'r', pr: { number: 1 } }),
  createQueue: () => ({ ...queueRef('fuzz'), concurrency: 2, mode: 'single', requiredStatuses: ['ci'], state: 'paused' }),
  getQueue: () => queueRef(),
  updateQueue: () => ({ ...queueRef(), concurrency: 3, batch: true, mergeMethod: 'rebase', state: 'running', requiredStatuses: null }),
  deleteQueue: () => queueRef('fuzz'),
  'flaky-tests/list-quarantined-tests': () => ({ repo: ACME_REPO, org_url_slug: 'acme', page_query: { page_size: 5, page_token: '' } }),
};
const OPS = Object.keys(VALID);

/** Values a confused or hostile client might put anywhere. */
const junk: fc.Arbitrary<unknown> = fc.oneof(
  fc.jsonValue(),
  fc.constantFrom(
    null,
    0,
    -1,
    2 ** 53 + 1,
    1e308,
    -1e308,
    Number.MAX_SAFE_INTEGER,
    '',
    ' ',
    '0',
    '-0',
    '1e3',
    '99999999999999999999999999',
    'ALL',
    'urgent',
    'PAUSED',
    'switching_modes',
    '__proto__',
    'constructor',
    '\u0000',
    '🚀🚀',
    'x'.repeat(5000),
    [],
    {},
    [[[[[]]]]],
    { __proto__: { polluted: true } },
    { constructor: { prototype: { polluted: true } } },
  ),
  fc.string({ unit: 'grapheme', maxLength: 40 }),
  fc.array(fc.string({ unit: 'binary', maxLength: 10 }), { maxLength: 5 }),
  fc.dictionary(fc.string({ maxLength: 8 }), fc.jsonValue({ maxDepth: 3 }), { maxKeys: 5 }),
);

/** Paths into a body (existing or new), to replace with junk or remove. */
function pathsOf(value: unknown, prefix: string[] = []): string[][] {
  if (value === null || typeof value !== 'object') return [prefix];
  return [prefix, ...Object.entries(value).flatMap(([k, v]) => pathsOf(v, [...prefix, k]))];
}

function replaceAt(body: Record<string, unknown>, path: string[], value: unknown, remove: boolean): unknown {
  if (path.length === 0) return remove ? undefined : value;
  const copy = structuredClone(body);
  let node = copy as Record<string, unknown>;
  for (const k of path.slice(0, -1)) {
    if (node[k] === null || typeof node[k] !== 'object') node[k] = {};
    node = node[k] as Record<string, unknown>;
  }
  const last = path[path.length - 1]!;
  if (remove) delete node[last];
  else node[last] = value;
  return copy;
}

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
  await post(t, 'createQueue', queueRef());
  await post(t, 'submitPullRequest', prRef(1));
});
afterAll(async () => {
  await t.close();
});

async function expectHandled(op: string, text: string | undefined): Promise<void> {
  const req = request(t.app).post(`/v1/${op}`).set('x-api-token', t.acme.token).set('Content-Type', 'application/json');
  const res = await (text === undefined ? req : req.send(text));
  if (res.status >= 500) throw new Error(`${op} answered ${res.status} to ${text?.slice(0, 300)}: ${JSON.stringify(res.body)}`);
  if (res.status >= 400) {
    expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
    expect(res.body).toEqual(expect.objectContaining({ status: res.status, code: expect.any(String), detail: expect.any(String) }));
    expect(JSON.stringify(res.body)).not.toMatch(/\bat .+\.(ts|js):\d+/); // no stack traces
  } else {
    expect(res.status).toBe(200);
  }
}

test('random JSON bodies to every route are answered, never with a 500', async () => {
  await fc.assert(
    fc.asyncProperty(fc.constantFrom(...OPS), fc.jsonValue({ maxDepth: 4 }), async (op, body) => {
      await expectHandled(op, JSON.stringify(body));
    }),
    { numRuns: 250 },
  );
});

test('valid bodies with one part replaced by junk or removed are answered, never with a 500', async () => {
  const mutation = fc.constantFrom(...OPS).chain((op) => {
    const body = VALID[op]!();
    const paths = [...pathsOf(body), ['unknownField'], ['repo', 'extra'], ['pr', 'sha']];
    return fc.record({ op: fc.constant(op), body: fc.constant(body), path: fc.constantFrom(...paths), value: junk, remove: fc.boolean() });
  });
  await fc.assert(
    fc.asyncProperty(mutation, async ({ op, body, path, value, remove }) => {
      await expectHandled(op, JSON.stringify(replaceAt(body, path, value, remove)) ?? '');
    }),
    { numRuns: 400 },
  );
});

test('bodies that are not JSON at all are answered 400, never with a 500', async () => {
  await fc.assert(
    fc.asyncProperty(fc.constantFrom(...OPS), fc.string({ unit: 'binary', maxLength: 60 }), async (op, text) => {
      await expectHandled(op, text);
    }),
    { numRuns: 150 },
  );
});

test('nothing leaked into Object.prototype', () => {
  expect(({} as Record<string, unknown>).polluted).toBeUndefined();
});
