import { mkdirSync, mkdtempSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { globToRegExp } from '../../../src/cli/test-wrapper/glob-pattern.js';
import { findJunitFiles } from '../../../src/cli/test-wrapper/junit-files.js';

describe('JUnit report files', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'mergeq-junit-files-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  test('globs: * within a segment, ** across, braces', () => {
    expect(globToRegExp('reports/**/*.xml').test('reports/a/b/c.xml')).toBe(true);
    expect(globToRegExp('reports/**/*.xml').test('reports/c.xml')).toBe(true);
    expect(globToRegExp('reports/*.xml').test('reports/a/c.xml')).toBe(false);
    expect(globToRegExp('{a,b}/*.xml').test('b/x.xml')).toBe(true);
  });

  test('only reports written since the command started; stale ones are left out', () => {
    mkdirSync(join(dir, 'reports', 'unit'), { recursive: true });
    writeFileSync(join(dir, 'reports', 'unit', 'fresh.xml'), '<testsuites/>');
    writeFileSync(join(dir, 'reports', 'stale.xml'), '<testsuites/>');
    const hourAgo = new Date(Date.now() - 3_600_000);
    utimesSync(join(dir, 'reports', 'stale.xml'), hourAgo, hourAgo);
    writeFileSync(join(dir, 'reports', 'notes.txt'), '');
    expect(findJunitFiles('reports/**/*.xml', dir, Date.now() - 60_000)).toEqual([join(dir, 'reports', 'unit', 'fresh.xml')]);
    expect(findJunitFiles('reports/**/*.xml', dir, 0)).toHaveLength(2);
  });
});
