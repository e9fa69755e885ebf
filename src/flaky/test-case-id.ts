import { v5 as uuidv5 } from 'uuid';
import type { TestIdentity } from '../domain/flaky.js';

/** The UUIDv5 namespace of mergeq test case ids; never change it, or every id changes. */
const TEST_CASE_NAMESPACE = '3f0c3b9e-6a1d-5c1e-9b8a-2d6f1c0e7a41';

/** Uploads repeat the same tests: remembered ids save a SHA-1 each (a third of a 10,000-test upload). */
const MAX_REMEMBERED = 200_000;
const remembered = new Map<string, string>();

/**
 * `test_case_id`: a UUIDv5 over (repo, file, classname, parent, name, variant), absent values as "".
 * Stable across uploads; different per variant.
 */
export function testCaseId(repoKey: string, id: TestIdentity): string {
  const fields = [repoKey, id.file ?? '', id.classname ?? '', id.parent ?? '', id.name, id.variant ?? ''];
  // JSON keeps fields apart: ("a b", "c") and ("a", "b c") never collide.
  const name = JSON.stringify(fields);
  let known = remembered.get(name);
  if (known === undefined) {
    known = uuidv5(name, TEST_CASE_NAMESPACE);
    if (remembered.size >= MAX_REMEMBERED) remembered.clear();
    remembered.set(name, known);
  }
  return known;
}
