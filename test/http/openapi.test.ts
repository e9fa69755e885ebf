import request from 'supertest';
import { makeReady, startRun } from './helpers/engine-steps.js';
import { post, prRef, queueRef } from './helpers/requests.js';
import { createTestApp, type TestApp } from './helpers/test-app.js';

/** GET /v1/openapi.json: an OpenAPI 3.1 document that matches what the API accepts and answers. */

type Schema = {
  type?: string | string[];
  properties?: Record<string, Schema>;
  required?: string[];
  items?: Schema;
  anyOf?: Schema[];
  enum?: unknown[];
  minimum?: number;
  maximum?: number;
  additionalProperties?: boolean;
};
type Doc = {
  openapi: string;
  info: { title: string; version: string };
  paths: Record<string, Record<string, { requestBody?: { content: Record<string, { schema: Schema }> }; responses: Record<string, { content?: Record<string, { schema: Schema }> }>; parameters?: { name: string; in: string }[]; security?: unknown[] }>>;
  components: { securitySchemes: Record<string, { type: string; in: string; name: string }>; schemas: Record<string, Schema> };
  security: Record<string, unknown[]>[];
};

// The operations the seed names, written out here independently of the route table.
const SEED_POST_OPERATIONS = [
  'submitPullRequest',
  'cancelPullRequest',
  'restartTestsOnPullRequest',
  'getSubmittedPullRequest',
  'setImpactedTargets',
  'getMergeQueueTestingDetails',
  'createQueue',
  'deleteQueue',
  'getQueue',
  'updateQueue',
  'flaky-tests/list-quarantined-tests',
];

let t: TestApp;
let doc: Doc;
beforeAll(async () => {
  t = await createTestApp();
  const res = await request(t.app).get('/v1/openapi.json');
  expect(res.status).toBe(200);
  expect(res.headers['content-type']).toMatch(/^application\/json/);
  doc = res.body as Doc;
});
afterAll(async () => {
  await t.close();
});

const requestSchema = (op: string) => doc.paths[`/v1/${op}`]!.post!.requestBody!.content['application/json']!.schema;
const okSchema = (op: string) => doc.paths[`/v1/${op}`]!.post!.responses['200']!.content!['application/json']!.schema;

test('is an OpenAPI 3.1 document served without a token, with the token scheme declared', () => {
  expect(doc.openapi).toBe('3.1.0');
  expect(doc.info).toEqual(expect.objectContaining({ title: 'mergeq', version: expect.stringMatching(/^\d+\.\d+\.\d+/) }));
  expect(doc.components.securitySchemes.apiToken).toEqual({ type: 'apiKey', in: 'header', name: 'x-api-token' });
  expect(doc.security).toEqual([{ apiToken: [] }]);
  for (const open of ['/healthz', '/readyz', '/v1/openapi.json']) expect(doc.paths[open]!.get!.security).toEqual([]);
});

test('lists every operation of the seed with a JSON request body and a problem+json for errors', () => {
  for (const op of SEED_POST_OPERATIONS) {
    const operation = doc.paths[`/v1/${op}`]?.post;
    expect([op, operation !== undefined]).toEqual([op, true]);
    expect(requestSchema(op).type).toBe('object');
    for (const status of ['400', '401', '413', '415', '429']) {
      expect(operation!.responses[status]!.content!['application/problem+json']!.schema).toEqual({ $ref: '#/components/schemas/Problem' });
    }
  }
  const metrics = doc.paths['/v1/getMergeQueueMetrics']!.get!;
  expect(metrics.parameters!.map((p) => [p.name, p.in])).toEqual([
    ['repo', 'query'],
    ['repoHost', 'query'],
  ]);
  expect(doc.components.schemas.Problem!.required).toEqual(expect.arrayContaining(['type', 'title', 'status', 'code', 'detail', 'errors']));
});

test('request schemas say what validation enforces: required fields, bounds, enums', () => {
  expect(requestSchema('getQueue').required).toEqual(['repo', 'targetBranch']);
  expect(requestSchema('getQueue').properties!.repo!.required).toEqual(['host', 'owner', 'name']);
  expect(requestSchema('submitPullRequest').required).toEqual(['repo', 'targetBranch', 'pr']);
  expect(requestSchema('setImpactedTargets').properties!.pr!.required).toEqual(['number', 'sha']);
  expect(requestSchema('flaky-tests/list-quarantined-tests').required).toEqual(['repo', 'org_url_slug', 'page_query']);

  const settings = requestSchema('createQueue').properties!;
  const concurrency = settings.concurrency!.anyOf!.find((s) => s.type !== 'null')!;
  expect([concurrency.minimum, concurrency.maximum]).toEqual([1, 1000]);
  const mode = settings.mode!.anyOf!.find((s) => s.type !== 'null')!;
  expect(mode.enum).toEqual(['single', 'parallel']);
  const state = requestSchema('updateQueue').properties!.state!.anyOf!.find((s) => s.type !== 'null')!;
  expect(state.enum).toEqual(['running', 'paused', 'draining']);
  // The project's own operations refuse unknown fields; the seed's real-client operations ignore them (docs/api.md).
  expect(requestSchema('createQueue').additionalProperties).toBe(false);
  expect(requestSchema('getQueue').additionalProperties).toBeUndefined();
});

/** Checks `value` against the documented schema: required fields present, no undocumented ones. */
function expectDocumented(schema: Schema, value: unknown, where: string): void {
  if (schema.anyOf) {
    const nonNull = schema.anyOf.filter((s) => s.type !== 'null');
    if (value === null) return expect([where, schema.anyOf.some((s) => s.type === 'null')]).toEqual([where, true]);
    return expectDocumented(nonNull[0]!, value, where);
  }
  if (schema.type === 'object') {
    expect(value !== null && typeof value === 'object').toBe(true);
    const keys = Object.keys(value as object).sort();
    expect([where, keys]).toEqual([where, expect.arrayContaining(schema.required ?? [])]);
    expect([where, keys.filter((k) => !(k in (schema.properties ?? {})))]).toEqual([where, []]);
    for (const [k, v] of Object.entries(value as object)) expectDocumented(schema.properties![k]!, v, `${where}.${k}`);
  } else if (schema.type === 'array') {
    expect(Array.isArray(value)).toBe(true);
    (value as unknown[]).forEach((v, i) => expectDocumented(schema.items!, v, `${where}.${i}`));
  } else if (schema.type === 'integer') {
    expect([where, Number.isInteger(value)]).toEqual([where, true]);
  } else if (typeof schema.type === 'string') {
    expect([where, typeof value]).toEqual([where, schema.type]);
  }
}

test('the documented responses are what the operations answer', async () => {
  const created = await post(t, 'createQueue', queueRef());
  expectDocumented(okSchema('createQueue'), created.body, 'createQueue');
  for (const n of [1, 2]) await post(t, 'submitPullRequest', prRef(n));
  await makeReady(t, 'main', [1]);
  await startRun(t, 'main', [1], { runId: 'run-1' });

  expectDocumented(okSchema('getQueue'), (await post(t, 'getQueue', queueRef())).body, 'getQueue');
  expectDocumented(okSchema('getSubmittedPullRequest'), (await post(t, 'getSubmittedPullRequest', prRef(1))).body, 'getSubmittedPullRequest');
  expectDocumented(okSchema('submitPullRequest'), (await post(t, 'submitPullRequest', prRef(3))).body, 'submitPullRequest');
  const stacked = (await post(t, 'submitPullRequest', { ...prRef(5), stack: { prs: [4, 5] } })).body;
  expect(stacked.stack).toEqual({ id: 'declared:4', number: null, kind: 'declared', position: 2, size: 2, members: [4, 5] });
  expectDocumented(okSchema('submitPullRequest'), stacked, 'submitPullRequest with a stack');
  expectDocumented(okSchema('getQueue'), (await post(t, 'getQueue', queueRef())).body, 'getQueue with a stack');
  const details = (await post(t, 'getMergeQueueTestingDetails', queueRef())).body;
  expect(details.testRuns).toHaveLength(1);
  expectDocumented(okSchema('getMergeQueueTestingDetails'), details, 'getMergeQueueTestingDetails');
  const targets = (await post(t, 'setImpactedTargets', { ...queueRef(), pr: { number: 1, sha: 's' }, impactedTargets: 'ALL' })).body;
  expectDocumented(okSchema('setImpactedTargets'), targets, 'setImpactedTargets');
  const listed = (await post(t, 'flaky-tests/list-quarantined-tests', { repo: queueRef().repo, org_url_slug: 'acme', page_query: {} })).body;
  expectDocumented(okSchema('flaky-tests/list-quarantined-tests'), listed, 'list-quarantined-tests');
  expectDocumented(okSchema('deleteQueue'), (await post(t, 'deleteQueue', queueRef('none'))).body, 'deleteQueue');
  const problem = (await post(t, 'getQueue', {})).body;
  expectDocumented(doc.components.schemas.Problem!, problem, 'Problem');
});

test('each operation states its body limit: 20 MiB for setImpactedTargets, 1 MiB for the others', async () => {
  const t = await createTestApp();
  try {
    const doc = (await request(t.app).get('/v1/openapi.json')).body as { info: { description: string }; paths: Record<string, { post?: Record<string, unknown> }> };
    const limits = Object.fromEntries(
      Object.entries(doc.paths)
        .filter(([, item]) => item.post)
        .map(([path, item]) => [path, item.post!['x-max-body-bytes']]),
    );
    expect(limits['/v1/setImpactedTargets']).toBe(20 * 1024 * 1024);
    for (const op of SEED_POST_OPERATIONS.filter((o) => o !== 'setImpactedTargets')) expect(limits[`/v1/${op}`]).toBe(1024 * 1024);
    expect(doc.info.description).toContain('maximum, not a minimum');
  } finally {
    await t.close();
  }
});
