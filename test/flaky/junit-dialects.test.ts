import { groupAttempts, MAX_TEST_NAME_LENGTH } from '../../src/flaky/group-attempts.js';
import { JunitSyntaxError, parseJunit } from '../../src/flaky/junit-parser.js';

import { junitFixture as fixture } from '../fixtures/junit/fixtures.js';

/** [parent, classname, name, file, outcome, failedAttempts, passedAttempts] per test case. */
function casesOf(name: string) {
  return groupAttempts(parseJunit(fixture(name)), null).cases.map((c) => [
    c.parent,
    c.classname,
    c.name,
    c.file,
    c.outcome,
    c.failedAttempts,
    c.passedAttempts,
  ]);
}

describe('JUnit dialects', () => {
  test('jest-junit without file: suite as parent, "{classname} {title}" names', () => {
    expect(casesOf('jest-junit.xml')).toEqual([
      ['cart', 'cart adds an item', 'cart adds an item', null, 'passed', 0, 1],
      ['cart', 'cart applies a discount', 'cart applies a discount', null, 'failed', 1, 0],
      ['checkout', 'checkout pays by card', 'checkout pays by card', null, 'skipped', 0, 0],
    ]);
  });

  test('jest-junit with addFileAttribute: the file of each case', () => {
    expect(casesOf('jest-junit-file.xml')).toEqual([
      ['cart', 'cart adds an item', 'cart adds an item', 'src/cart.test.ts', 'passed', 0, 1],
      ['cart', 'cart applies a discount', 'cart applies a discount', 'src/cart.test.ts', 'failed', 1, 0],
    ]);
  });

  test('pytest xunit1: file attribute; failure and error both fail; skipped', () => {
    expect(casesOf('pytest-xunit1.xml')).toEqual([
      ['pytest', 'tests.test_prices', 'test_total', 'tests/test_prices.py', 'passed', 0, 1],
      ['pytest', 'tests.test_prices', 'test_rounding', 'tests/test_prices.py', 'failed', 1, 0],
      ['pytest', 'tests.test_prices', 'test_currency[EUR]', 'tests/test_prices.py', 'skipped', 0, 0],
      ['pytest', 'tests.test_db', 'test_connect', 'tests/test_db.py', 'failed', 1, 0],
    ]);
  });

  test("each failed case keeps the first line of its failure: the message attribute, else the element's text", () => {
    const lines = (name: string) => groupAttempts(parseJunit(fixture(name)), null).cases.filter((c) => c.outcome === 'failed').map((c) => [c.name, c.firstFailureLine]);
    expect(lines('pytest-xunit1.xml')).toEqual([
      ['test_rounding', 'assert 0.30000000000000004 == 0.3'],
      ['test_connect', 'failed on setup with "ConnectionRefusedError"'],
    ]);
    expect(lines('jest-junit.xml')).toEqual([['cart applies a discount', 'Error: expect(received).toBe(expected) // Object.is equality']]);
    const bare = '<testsuite name="s"><testcase name="t"><failure/></testcase><testcase name="u"><failure message=""><![CDATA[\n  boom at line 3\nmore]]></failure></testcase></testsuite>';
    expect(groupAttempts(parseJunit(bare), null).cases.map((c) => [c.name, c.firstFailureLine])).toEqual([
      ['t', undefined],
      ['u', 'boom at line 3'],
    ]);
  });

  test('pytest xunit2: no file', () => {
    expect(casesOf('pytest-xunit2.xml')).toEqual([
      ['pytest', 'tests.test_prices', 'test_total', null, 'passed', 0, 1],
      ['pytest', 'tests.test_prices', 'test_rounding', null, 'failed', 1, 0],
    ]);
  });

  test('gotestsum: package as suite and classname; a --rerun-fails retry is a repeated testcase', () => {
    expect(casesOf('gotestsum.xml')).toEqual([
      ['example.com/shop/cart', 'example.com/shop/cart', 'TestAdd', null, 'passed', 0, 1],
      ['example.com/shop/cart', 'example.com/shop/cart', 'TestDiscount', null, 'passed', 1, 1],
      ['example.com/shop/cart', 'example.com/shop/cart', 'TestRemove', null, 'skipped', 0, 0],
      ['example.com/shop/pay', 'example.com/shop/pay', 'TestCharge', null, 'failed', 1, 0],
    ]);
  });

  test('Maven Surefire: flakyFailure/flakyError passed on retry; rerunFailure/rerunError failed again', () => {
    const suite = 'com.acme.shop.CartTest';
    expect(casesOf('surefire.xml')).toEqual([
      [suite, suite, 'addsItem', null, 'passed', 0, 1],
      [suite, suite, 'appliesDiscount', null, 'passed', 1, 1],
      [suite, suite, 'talksToDatabase', null, 'passed', 2, 1],
      [suite, suite, 'removesItem', null, 'failed', 3, 0],
    ]);
  });

  test('Bazel test.xml: the target is the test, error means failed', () => {
    expect(casesOf('bazel-test.xml')).toEqual([['//shop/cart:cart_test', null, '//shop/cart:cart_test', null, 'failed', 1, 0]]);
  });

  test('nested testsuites: the innermost suite is the parent, the file is inherited, document order', () => {
    expect(casesOf('nested-suites.xml')).toEqual([
      ['cart', 'shop.cart', 'adds an item', 'spec/shop_spec.rb', 'passed', 0, 1],
      ['discounts', 'shop.cart.discounts', 'applies ten percent', 'spec/shop_spec.rb', 'failed', 1, 0],
      ['shop', 'shop', 'boots', 'spec/shop_spec.rb', 'passed', 0, 1],
    ]);
  });

  test('retries as repeated test cases: one case each, the last attempt decides', () => {
    expect(casesOf('retries.xml')).toEqual([
      ['cart', 'cart', 'loads prices', 'src/cart.test.ts', 'passed', 1, 1],
      ['cart', 'cart', 'always fails', 'src/cart.test.ts', 'failed', 2, 0],
      ['cart', 'cart', 'passes', 'src/cart.test.ts', 'passed', 0, 1],
    ]);
  });

  test('malformed XML: the line and column of the problem', () => {
    let error: unknown;
    try {
      parseJunit(fixture('malformed.xml'));
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(JunitSyntaxError);
    expect(error).toMatchObject({ line: 5, column: expect.any(Number) });
  });

  test('a document without testcase yields nothing', () => {
    expect(parseJunit('<testsuites/>')).toEqual([]);
    expect(parseJunit('<testsuite name="empty" tests="0"></testsuite>')).toEqual([]);
  });

  test('names over the limit are cut, and counted', () => {
    const long = 'x'.repeat(MAX_TEST_NAME_LENGTH + 5);
    const { cases, truncatedNames } = groupAttempts(parseJunit(`<testsuite><testcase name="${long}"/></testsuite>`), 'linux');
    expect(cases[0]).toMatchObject({ name: 'x'.repeat(MAX_TEST_NAME_LENGTH), variant: 'linux' });
    expect(truncatedNames).toBe(1);
  });
});
