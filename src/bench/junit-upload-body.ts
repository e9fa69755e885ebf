import type { RepoRef } from '../domain/repo.js';

/**
 * A JUnit document of `tests` test cases in suites of 100, every `failEvery`-th failing, each case
 * carrying `outputBytes` of system-out (to reach a body size with a realistic number of tests).
 */
export function junitDocument(opts: { tests: number; failEvery: number; outputBytes: number }): string {
  const output = opts.outputBytes > 0 ? `<system-out>${'x'.repeat(opts.outputBytes)}</system-out>` : '';
  const parts: string[] = ['<?xml version="1.0" encoding="UTF-8"?><testsuites>'];
  for (let s = 0; s * 100 < opts.tests; s++) {
    parts.push(`<testsuite name="suite ${s}" tests="100">`);
    for (let i = s * 100; i < Math.min(opts.tests, (s + 1) * 100); i++) {
      const failure = i % opts.failEvery === 0 ? '<failure message="expected 1, got 2">AssertionError at line 12</failure>' : '';
      parts.push(`<testcase classname="suite ${s}" name="case ${i} does its thing" file="src/suite-${s}.test.ts" time="0.01">${failure}${output}</testcase>`);
    }
    parts.push('</testsuite>');
  }
  parts.push('</testsuites>');
  return parts.join('');
}

/**
 * Upload bodies that differ only in `uploadId` (each request is a new upload, not an idempotent
 * repeat): the JSON is built once, split around the id.
 */
export function uploadBodies(repo: RepoRef, xml: string): { next: () => string; bytes: number } {
  const marker = '__UPLOAD_ID__';
  const template = JSON.stringify({ repo, commitSha: 'c'.repeat(40), branch: 'feature', uploadId: marker, junitXml: xml });
  const [before, after] = template.split(marker) as [string, string];
  let n = 0;
  return { next: () => `${before}bench-${process.pid}-${n++}${after}`, bytes: Buffer.byteLength(template) };
}
