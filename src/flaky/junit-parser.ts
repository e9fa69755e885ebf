import { XMLParser, XMLValidator } from 'fast-xml-parser';
import type { TestOutcome } from '../domain/flaky.js';

/** One `<testcase>` element: one attempt of a test. Retries are repeated elements (or Surefire's flaky/rerun children). */
export interface JunitAttempt {
  file: string | null;
  classname: string | null;
  /** The name of the innermost enclosing `<testsuite>`. */
  parent: string | null;
  name: string;
  outcome: TestOutcome;
}

export class JunitSyntaxError extends Error {
  constructor(
    readonly line: number,
    readonly column: number,
    readonly reason: string,
  ) {
    super(`${reason} (line ${line}, column ${column})`);
  }
}

type XmlNode = Record<string, unknown>;

const REPEATABLE = new Set(['testsuite', 'testcase', 'failure', 'error', 'skipped', 'flakyFailure', 'flakyError', 'rerunFailure', 'rerunError']);

const parser = new XMLParser({
  ignoreAttributes: false,
  attributeNamePrefix: '',
  parseAttributeValue: false,
  parseTagValue: false,
  // Output and stack traces are never read: kept as raw text, not parsed into nodes.
  stopNodes: ['*.system-out', '*.system-err', '*.failure', '*.error', '*.skipped'],
  isArray: (name) => REPEATABLE.has(name),
});

/**
 * The attempts in a JUnit XML document, in document order. Understands the dialects of jest-junit,
 * pytest (xunit1/xunit2), gotestsum, Maven Surefire (rerun/flaky children), Bazel test.xml and
 * nested testsuites. Throws JunitSyntaxError when the text is not well-formed XML.
 */
export function parseJunit(xml: string): JunitAttempt[] {
  const valid = XMLValidator.validate(xml);
  if (valid !== true) throw new JunitSyntaxError(valid.err.line, valid.err.col, valid.err.msg);
  const doc = parser.parse(xml) as XmlNode;
  const attempts: JunitAttempt[] = [];
  const roots = doc.testsuites !== undefined ? [doc.testsuites] : [];
  for (const root of roots) if (isNode(root)) walkSuites(root, null, null, attempts);
  for (const suite of asArray(doc.testsuite)) walkSuite(suite, null, attempts);
  // A bare <testcase> root, as some tools write for a single test.
  for (const tc of asArray(doc.testcase)) readTestCase(tc, null, null, attempts);
  return attempts;
}

function walkSuites(container: XmlNode, parent: string | null, file: string | null, out: JunitAttempt[]): void {
  for (const suite of asArray(container.testsuite)) walkSuite(suite, file, out);
  for (const tc of asArray(container.testcase)) readTestCase(tc, parent, file, out);
}

function walkSuite(suite: XmlNode, inheritedFile: string | null, out: JunitAttempt[]): void {
  const name = text(suite.name);
  const file = text(suite.file) ?? inheritedFile;
  for (const tc of asArray(suite.testcase)) readTestCase(tc, name, file, out);
  for (const nested of asArray(suite.testsuite)) walkSuite(nested, file, out);
}

function readTestCase(tc: XmlNode, parent: string | null, suiteFile: string | null, out: JunitAttempt[]): void {
  const identity = {
    file: text(tc.file) ?? suiteFile,
    classname: text(tc.classname),
    parent,
    name: text(tc.name) ?? '',
  };
  const failed = tc.failure !== undefined || tc.error !== undefined;
  // Surefire: each rerunFailure/rerunError is a further failed attempt; each flakyFailure/flakyError a
  // failed attempt before the final pass.
  const reruns = asArray(tc.rerunFailure).length + asArray(tc.rerunError).length;
  const flakyRuns = asArray(tc.flakyFailure).length + asArray(tc.flakyError).length;
  if (failed) {
    for (let i = 0; i < 1 + reruns; i++) out.push({ ...identity, outcome: 'failed' });
    return;
  }
  for (let i = 0; i < flakyRuns; i++) out.push({ ...identity, outcome: 'failed' });
  out.push({ ...identity, outcome: tc.skipped !== undefined ? 'skipped' : 'passed' });
}

function isNode(value: unknown): value is XmlNode {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function asArray(value: unknown): XmlNode[] {
  const list = Array.isArray(value) ? value : value === undefined ? [] : [value];
  // An empty element (<testsuite/>) parses as "": it is a node without attributes.
  return list.map((v) => (isNode(v) ? v : {}));
}

function text(value: unknown): string | null {
  return typeof value === 'string' && value !== '' ? value : null;
}
