import { describe, expect, it } from '@jest/globals';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * Every relative link of README.md and docs/*.md leads to a file of the repository (and, with a
 * `#fragment`, to a heading of it), and every Markdown file a page names exists: a
 * reader never meets a page that is not in the repository (the specification, say).
 */
const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const PAGES = ['README.md', ...readdirSync(join(ROOT, 'docs')).filter((f) => f.endsWith('.md')).map((f) => `docs/${f}`)];

/** The text outside fenced code blocks (links in examples are not links). */
function prose(markdown: string): string {
  return markdown.replace(/^```[\s\S]*?^```/gm, '');
}

/** GitHub's anchor of a heading: lower case, punctuation dropped, spaces to dashes. */
function slug(heading: string): string {
  return heading.trim().toLowerCase().replace(/[^\p{L}\p{N}\s_-]/gu, '').replace(/\s/g, '-');
}

function anchorsOf(file: string): Set<string> {
  const headings = prose(readFileSync(file, 'utf8')).match(/^#{1,6} .*$/gm) ?? [];
  return new Set(headings.map((h) => slug(h.replace(/^#+ /, ''))));
}

function linksOf(page: string): string[] {
  const text = prose(readFileSync(join(ROOT, page), 'utf8')).replace(/`[^`\n]*`/g, '');
  return [...text.matchAll(/!?\[[^\]]*\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g)].map((m) => m[1]!).filter((target) => !/^[a-z][a-z+.-]*:/i.test(target));
}

/** Where a link of `page` leads, or why it leads nowhere. */
function problemWith(page: string, target: string): string | null {
  const [path, fragment] = target.split('#') as [string, string | undefined];
  const file = path === '' ? join(ROOT, page) : resolve(ROOT, dirname(page), decodeURIComponent(path));
  if (relative(ROOT, file).startsWith('..')) return 'leads out of the repository';
  if (!existsSync(file)) return 'no such file';
  if (fragment !== undefined && file.endsWith('.md') && !anchorsOf(file).has(fragment)) return `no heading #${fragment}`;
  if (fragment !== undefined && statSync(file).isDirectory()) return 'a fragment on a folder';
  return null;
}

describe('the documentation', () => {
  it.each(PAGES)('%s: every relative link resolves', (page) => {
    const broken = linksOf(page).flatMap((target) => {
      const problem = problemWith(page, target);
      return problem ? [`${target}: ${problem}`] : [];
    });
    expect(broken).toEqual([]);
  });

  it.each(PAGES)('%s: every Markdown file it names is in the repository', (page) => {
    const text = readFileSync(join(ROOT, page), 'utf8').replace(/\bhttps?:\/\/\S+/g, '');
    const named = [...text.matchAll(/(?<![\w./-])([\w./-]+\.md)\b/g)].map((m) => m[1]!);
    const missing = named.filter((name) => !existsSync(resolve(ROOT, dirname(page), name)) && !existsSync(resolve(ROOT, name)));
    expect(missing).toEqual([]);
  });

  it('finds the links it checks (the README links the docs)', () => {
    expect(linksOf('README.md')).toEqual(expect.arrayContaining(['docs/configuration.md', 'docs/benchmarks.md', 'bench/results/ui/queue-live.png']));
  });

  it('keeps the README to at most 200 lines', () => {
    expect(readFileSync(join(ROOT, 'README.md'), 'utf8').split('\n').length).toBeLessThanOrEqual(200);
  });
});
