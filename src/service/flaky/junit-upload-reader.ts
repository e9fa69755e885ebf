import { AttemptGroups, type UploadedTestCase } from '../../flaky/group-attempts.js';
import { JunitSyntaxError, junitReader } from '../../flaky/junit-parser.js';
import { ServiceError } from '../errors.js';
import { loopPacer } from './loop-pacer.js';

/** flaky-tests.md: at most 50,000 test cases per upload. */
export const MAX_TEST_CASES_PER_UPLOAD = 50_000;
/**
 * The work one upload may ask for: `<testcase>` attempts (repeated elements and Surefire reruns
 * each count), twice the test cases allowed. One million repeats of one test are one test case, but
 * a million elements to read: this refuses them at the first one over.
 */
export const MAX_TEST_ATTEMPTS_PER_UPLOAD = 2 * MAX_TEST_CASES_PER_UPLOAD;
/** Characters handed to the XML reader at once, between which the event loop may turn. */
const PIECE_CHARS = 16 * 1024;

/**
 * The test cases of an upload's JUnit documents, read in pieces that let the event loop turn.
 * 400 `invalid_junit` for a document that is not well-formed or is refused (DOCTYPE, deep nesting);
 * 413 beyond the limits, as soon as one is passed (nothing further is read).
 */
export async function readUploadedJunit(documents: string[], variant: string | null, pathRoot: string | null) {
  const groups = new AttemptGroups(variant, pathRoot);
  const pace = loopPacer();
  let attempts = 0;
  for (const [index, xml] of documents.entries()) {
    const reader = junitReader((attempt) => {
      if (++attempts > MAX_TEST_ATTEMPTS_PER_UPLOAD) throw tooManyAttempts();
      groups.add(attempt);
    });
    try {
      for (let at = 0; at < xml.length; at += PIECE_CHARS) {
        reader.write(xml.slice(at, at + PIECE_CHARS));
        await pace();
      }
      reader.close();
    } catch (err) {
      if (err instanceof JunitSyntaxError) throw invalidJunit(index, err);
      throw err;
    }
  }
  const grouped = groups.result();
  if (grouped.cases.length > MAX_TEST_CASES_PER_UPLOAD) {
    throw new ServiceError(
      413,
      'payload_too_large',
      'Too many test cases',
      `the upload holds ${grouped.cases.length} test cases; at most ${MAX_TEST_CASES_PER_UPLOAD} per upload`,
    );
  }
  return grouped satisfies { cases: UploadedTestCase[]; truncatedNames: number };
}

function tooManyAttempts(): ServiceError {
  return new ServiceError(
    413,
    'payload_too_large',
    'Too many test results',
    `the upload holds more than ${MAX_TEST_ATTEMPTS_PER_UPLOAD} testcase results (repeated testcase elements and reruns each count); at most ${MAX_TEST_ATTEMPTS_PER_UPLOAD} per upload`,
    [{ path: 'junitXml', message: `more than ${MAX_TEST_ATTEMPTS_PER_UPLOAD} testcase results` }],
  );
}

function invalidJunit(index: number, err: JunitSyntaxError): ServiceError {
  const where = `line ${err.line}, column ${err.column}: ${err.reason}`;
  const what = err.kind === 'malformed' ? 'is not well-formed XML at' : 'is refused at';
  return new ServiceError(400, 'invalid_junit', 'Invalid JUnit XML', `junitXml[${index}] ${what} ${where}; nothing of this upload was stored`, [
    { path: `junitXml.${index}`, message: where },
  ]);
}
