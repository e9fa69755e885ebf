import request from 'supertest';
import { ACME_REPO, expectProblem, post } from './helpers/requests.js';
import { createTestApp, type TestApp } from './helpers/test-app.js';

/** Uploads an attacker (any organization's token) can send: each refused or ingested without stopping the service. */

let t: TestApp;
beforeEach(async () => {
  t = await createTestApp();
});
afterEach(async () => {
  await t.close();
});

const upload = (junitXml: string | string[]) => post(t, 'flaky-tests/upload', { repo: ACME_REPO, branch: 'feature', commitSha: 'c1', junitXml });

describe('JUnit a reporter never writes: 400 invalid_junit naming the reason', () => {
  test('a DOCTYPE with an external entity is refused, the entity never read', async () => {
    const xxe = '<?xml version="1.0"?><!DOCTYPE testsuites [<!ENTITY secret SYSTEM "file:///etc/passwd">]><testsuites><testsuite name="&secret;"><testcase name="a"/></testsuite></testsuites>';
    const res = await upload(['<testsuites/>', xxe]);
    expectProblem(res, 400, 'invalid_junit');
    expect(res.body.detail).toMatch(/^junitXml\[1\] is refused at line 1, column \d+: a DOCTYPE is not accepted/);
    expect(res.body.errors).toEqual([{ path: 'junitXml.1', message: expect.stringContaining('DOCTYPE') }]);
  });

  test('an internal entity bomb is refused at its DOCTYPE', async () => {
    const lol = '<!DOCTYPE t [<!ENTITY a "aaaaaaaaaa"><!ENTITY b "&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;"><!ENTITY c "&b;&b;&b;&b;&b;&b;&b;&b;&b;&b;">]><testsuite><testcase name="&c;"/></testsuite>';
    const res = await upload(lol);
    expectProblem(res, 400, 'invalid_junit');
    expect(res.body.detail).toContain('DOCTYPE');
  });

  test('nesting over 100 levels is refused; 100 levels are read', async () => {
    const nested = (levels: number) => `${'<testsuite name="s">'.repeat(levels - 1)}<testcase name="deep"/>${'</testsuite>'.repeat(levels - 1)}`;
    const deep = await upload(nested(101));
    expectProblem(deep, 400, 'invalid_junit');
    expect(deep.body.detail).toMatch(/^junitXml\[0\] is refused at line 1, column \d+: elements are nested more than 100 levels deep/);
    // Refused where the 101st level opens (100 suites of 20 characters, then the testcase).
    const huge = await upload(nested(101) + `<!--${'x'.repeat(10 * 1024 * 1024)}-->`);
    expect(huge.body.detail).toContain('line 1, column 2023:');

    const fine = await upload(nested(100));
    expect(fine.status).toBe(200);
    expect(fine.body).toMatchObject({ tests: 1 });
  });
});

test('more than 100,000 testcase results (one test repeated): 413 naming the limit, read no further', async () => {
  const repeated = `<testsuite name="s">${'<testcase name="same"/>'.repeat(100_001)}</testsuite>`;
  const res = await upload(repeated);
  expectProblem(res, 413, 'payload_too_large');
  expect(res.body.detail).toContain('more than 100000 testcase results');
  expect(res.body.errors).toEqual([{ path: 'junitXml', message: 'more than 100000 testcase results' }]);
  // 100,000 repeats of one test are one test case, within the limits.
  const within = await upload(`<testsuite name="s">${'<testcase name="same"/>'.repeat(100_000)}</testsuite>`);
  expect(within.body).toMatchObject({ tests: 1 });
});

test('/healthz answers while an upload making 20,000 tests flaky is ingested, never waiting long', async () => {
  // Each test fails and passes on one commit: 20,000 newly flaky (and quarantined) tests at once.
  const cases = Array.from({ length: 20_000 }, (_, i) => `<testcase classname="c" name="t${i}"><failure>boom</failure></testcase><testcase classname="c" name="t${i}"/>`);
  const started = performance.now();
  // .then() sends it (a supertest request is lazy).
  const pending = upload(`<testsuites><testsuite name="s">${cases.join('')}</testsuite></testsuites>`).then((res) => res);
  let uploadMs: number | null = null;
  void pending.finally(() => (uploadMs = performance.now() - started));
  const healthMs: number[] = [];
  while (uploadMs === null) {
    const asked = performance.now();
    const health = await request(t.app).get('/healthz');
    expect(health.status).toBe(200);
    healthMs.push(performance.now() - asked);
  }
  const res = await pending;
  expect(res.status).toBe(200);
  expect(res.body.newlyFlaky).toHaveLength(20_000);
  // Relative to the upload's own time, so that a loaded machine does not decide: ingestion that held
  // the event loop would make one /healthz wait for most of the upload.
  expect(healthMs.length).toBeGreaterThanOrEqual(10);
  expect(Math.max(...healthMs)).toBeLessThan(uploadMs! / 5);
}, 120_000);
