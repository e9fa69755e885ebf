import { SaxesParser, type SaxesTagPlain } from 'saxes';
import type { TestOutcome } from '../domain/flaky.js';

/** One `<testcase>` element: one attempt of a test. Retries are repeated elements (or Surefire's flaky/rerun children). */
export interface JunitAttempt {
  file: string | null;
  classname: string | null;
  /** The name of the innermost enclosing `<testsuite>`. */
  parent: string | null;
  name: string;
  outcome: TestOutcome;
  /** A failed attempt: the first line of its failure (the `message` attribute, else the element's text), at most 300 characters. */
  failureLine?: string;
}

const MAX_FAILURE_LINE = 300;

/** Deeper nesting than any reporter writes: refused, so that a hostile document cannot make the reader work for it. */
export const MAX_JUNIT_DEPTH = 100;

export class JunitSyntaxError extends Error {
  constructor(
    readonly line: number,
    readonly column: number,
    readonly reason: string,
    /** `malformed`: not well-formed XML; `refused`: well-formed, but beyond what a JUnit report holds (a DOCTYPE, deep nesting). */
    readonly kind: 'malformed' | 'refused' = 'malformed',
  ) {
    super(`${reason} (line ${line}, column ${column})`);
  }
}

/** What an element is to the reader; `other` elements and everything inside them are skipped. */
type Frame =
  | { kind: 'root' | 'suites' | 'other' }
  | { kind: 'suite'; name: string | null; file: string | null }
  | {
      kind: 'case';
      identity: Omit<JunitAttempt, 'outcome' | 'failureLine'>;
      failed: boolean;
      skipped: boolean;
      reruns: number;
      flakyRuns: number;
      /** The first line of its `<failure>`/`<error>`; `waiting` while its text may still give it. */
      failureLine: string | null;
      waiting: boolean;
    };

const FAILED_CHILDREN = new Set(['failure', 'error']);
const RERUN_CHILDREN = new Set(['rerunFailure', 'rerunError']);
const FLAKY_CHILDREN = new Set(['flakyFailure', 'flakyError']);

export interface JunitReader {
  /** Reads the next piece of the document: a document may be given in any number of pieces. */
  write(piece: string): void;
  /** The document has ended: throws when it is incomplete. */
  close(): void;
}

/**
 * A streaming reader of one JUnit XML document: `onAttempt` is called for each attempt, in document
 * order, as soon as its `<testcase>` closes. Understands the dialects of jest-junit, pytest
 * (xunit1/xunit2), gotestsum, Maven Surefire (rerun/flaky children), Bazel test.xml and nested
 * testsuites. Throws JunitSyntaxError (and reads nothing further) for text that is not well-formed
 * XML, a DOCTYPE (entities are never expanded) or nesting deeper than MAX_JUNIT_DEPTH.
 */
export function junitReader(onAttempt: (attempt: JunitAttempt) => void): JunitReader {
  const parser = new SaxesParser({ xmlns: false, position: true });
  const stack: Frame[] = [{ kind: 'root' }];
  const fail = (reason: string, kind: JunitSyntaxError['kind']): never => {
    throw new JunitSyntaxError(parser.line, parser.column, reason, kind);
  };
  parser.on('error', (err) => fail(err.message.replace(/^\d+:\d+: /, ''), 'malformed'));
  parser.on('doctype', () => fail('a DOCTYPE is not accepted in a JUnit report', 'refused'));
  parser.on('opentag', (tag: SaxesTagPlain) => {
    if (stack.length > MAX_JUNIT_DEPTH) fail(`elements are nested more than ${MAX_JUNIT_DEPTH} levels deep`, 'refused');
    stack.push(frameOf(tag, stack[stack.length - 1]!));
  });
  const failureText = (t: string) => {
    const parent = stack[stack.length - 2];
    if (parent?.kind === 'case' && parent.waiting) {
      const line = firstLine(t);
      if (line) {
        parent.failureLine = line;
        parent.waiting = false;
      }
    }
  };
  parser.on('text', failureText);
  parser.on('cdata', failureText);
  parser.on('closetag', () => {
    const frame = stack.pop()!;
    if (frame.kind === 'case') emitAttempts(frame, onAttempt);
  });
  return {
    write: (piece) => void parser.write(piece),
    close: () => void parser.close(),
  };
}

/** The attempts in a whole JUnit XML document, in document order. */
export function parseJunit(xml: string): JunitAttempt[] {
  const attempts: JunitAttempt[] = [];
  const reader = junitReader((a) => attempts.push(a));
  reader.write(xml);
  reader.close();
  return attempts;
}

function frameOf(tag: SaxesTagPlain, parent: Frame): Frame {
  const attr = (name: string) => text(tag.attributes[name]);
  // A root <testsuite> or bare <testcase> reads as one inside <testsuites>.
  if (parent.kind === 'root' && tag.name === 'testsuites') return { kind: 'suites' };
  if (parent.kind === 'root' || parent.kind === 'suites' || parent.kind === 'suite') {
    const inSuite = parent.kind === 'suite' ? parent : null;
    if (tag.name === 'testsuite') return { kind: 'suite', name: attr('name'), file: attr('file') ?? inSuite?.file ?? null };
    if (tag.name === 'testcase') {
      const identity = { file: attr('file') ?? inSuite?.file ?? null, classname: attr('classname'), parent: inSuite?.name ?? null, name: attr('name') ?? '' };
      return { kind: 'case', identity, failed: false, skipped: false, reruns: 0, flakyRuns: 0, failureLine: null, waiting: false };
    }
  } else if (parent.kind === 'case') {
    if (FAILED_CHILDREN.has(tag.name)) {
      parent.failed = true;
      if (parent.failureLine === null) {
        parent.failureLine = firstLine(attr('message') ?? '');
        parent.waiting = parent.failureLine === null;
      }
    } else if (parent.waiting) parent.waiting = false;
    else if (tag.name === 'skipped') parent.skipped = true;
    else if (RERUN_CHILDREN.has(tag.name)) parent.reruns++;
    else if (FLAKY_CHILDREN.has(tag.name)) parent.flakyRuns++;
  }
  return { kind: 'other' };
}

/**
 * Surefire: each rerunFailure/rerunError is a further failed attempt; each flakyFailure/flakyError a
 * failed attempt before the final pass.
 */
function emitAttempts(tc: Extract<Frame, { kind: 'case' }>, onAttempt: (attempt: JunitAttempt) => void): void {
  if (tc.failed) {
    const line = tc.failureLine === null ? {} : { failureLine: tc.failureLine };
    for (let i = 0; i < 1 + tc.reruns; i++) onAttempt({ ...tc.identity, outcome: 'failed', ...line });
    return;
  }
  for (let i = 0; i < tc.flakyRuns; i++) onAttempt({ ...tc.identity, outcome: 'failed' });
  onAttempt({ ...tc.identity, outcome: tc.skipped ? 'skipped' : 'passed' });
}

function firstLine(value: string): string | null {
  const line = value.split(/\r?\n/).map((l) => l.trim()).find((l) => l !== '');
  return line === undefined ? null : line.slice(0, MAX_FAILURE_LINE);
}

function text(value: string | undefined): string | null {
  return value !== undefined && value !== '' ? value : null;
}
