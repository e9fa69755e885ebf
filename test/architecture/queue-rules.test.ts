import { describe, expect, it } from '@jest/globals';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * docs/queue-rules.md stays the rulebook the code cites: every "rule N" in src/ and test/ (with its
 * list: single mode unless "batching" or "parallel" says otherwise) has a heading there, and every
 * file the rulebook names exists.
 */
const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const RULEBOOK = readFileSync(join(ROOT, 'docs', 'queue-rules.md'), 'utf8');
const HERE = relative(ROOT, dirname(fileURLToPath(import.meta.url)));

type List = 'single' | 'batching' | 'parallel';

const CITATION = /(?:\b(parallel(?: mode)?|"?batching"?|single[- ]mode)\s+)?\brules?\s+(\d+(?:\s*(?:[-–,]|and)\s*\d+)*)/gi;

/** `rules 2, 3, 6, 10` and `rules 4-6` name each of their numbers. */
function numbersOf(text: string): number[] {
  return text.split(/\s*(?:,|and)\s*/).flatMap((part) => {
    const [from, to] = part.split(/\s*[-–]\s*/).map(Number);
    if (from === undefined) return [];
    return to === undefined ? [from] : Array.from({ length: to - from + 1 }, (_, i) => from + i);
  });
}

function listOf(qualifier: string | undefined): List {
  const q = (qualifier ?? '').toLowerCase();
  return q.startsWith('parallel') ? 'parallel' : q.includes('batching') ? 'batching' : 'single';
}

function citationsIn(text: string): string[] {
  return [...text.matchAll(CITATION)].flatMap((m) => numbersOf(m[2] ?? '').map((n) => `${listOf(m[1])} rule ${n}`));
}

function filesUnder(dir: string): string[] {
  return readdirSync(join(ROOT, dir), { withFileTypes: true }).flatMap((e) => {
    const path = `${dir}/${e.name}`;
    if (e.isDirectory()) return path === HERE ? [] : filesUnder(path);
    return e.name.endsWith('.ts') ? [path] : [];
  });
}

const headings = new Set(
  [...RULEBOOK.matchAll(/^### (Rule|Batching rule|Parallel rule) (\d+) —/gm)].map((m) => `${listOf(m[1] === 'Rule' ? undefined : m[1])} rule ${m[2]}`),
);

describe('docs/queue-rules.md', () => {
  it('has the rules of the three lists: single mode 1-12, batching 1-4, parallel 1-5', () => {
    const expected = [
      ...numbersOf('1-12').map((n) => `single rule ${n}`),
      ...numbersOf('1-4').map((n) => `batching rule ${n}`),
      ...numbersOf('1-5').map((n) => `parallel rule ${n}`),
    ];
    expect([...headings].sort()).toEqual(expected.sort());
  });

  it('has a heading for every rule cited in src/ and test/', () => {
    const cited = ['src', 'test'].flatMap(filesUnder).flatMap((file) => citationsIn(readFileSync(join(ROOT, file), 'utf8')).map((c) => ({ file, c })));
    expect(cited.length).toBeGreaterThan(30);
    expect(cited.filter(({ c }) => !headings.has(c)).map(({ file, c }) => `${file}: ${c}`)).toEqual([]);
  });

  it('reads citations with their list, ranges and enumerations included', () => {
    expect(citationsIn('Merge decisions (rules 2, 3, 6, 10)')).toEqual(['single rule 2', 'single rule 3', 'single rule 6', 'single rule 10']);
    expect(citationsIn('queue-semantics.md, "Batching" rules 3-4')).toEqual(['batching rule 3', 'batching rule 4']);
    expect(citationsIn('parallel mode rule 2; parallel rule 4 and rule 6')).toEqual(['parallel rule 2', 'parallel rule 4', 'single rule 6']);
    expect(citationsIn('(single-mode rule 6, parallel case)')).toEqual(['single rule 6']);
    expect(citationsIn('a made-up rule 13')).toEqual(['single rule 13']);
    expect(headings.has('single rule 13')).toBe(false);
  });

  it('names only files that exist', () => {
    const named = [...RULEBOOK.matchAll(/`((?:src|test)\/[^`\s]+\.ts)`/g)].map((m) => m[1] ?? '');
    expect(named.length).toBeGreaterThan(40);
    expect(named.filter((f) => !existsSync(join(ROOT, f)))).toEqual([]);
  });
});
