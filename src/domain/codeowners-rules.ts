/** One CODEOWNERS line: a gitignore-style pattern and the owners it assigns. */
export interface CodeOwnersRule {
  pattern: RegExp;
  owners: string[];
}

/** The rules of a CODEOWNERS file, in file order; comments and blank lines skipped. */
export function parseCodeOwners(text: string): CodeOwnersRule[] {
  const rules: CodeOwnersRule[] = [];
  for (const raw of text.split(/\r?\n/)) {
    const line = raw.replace(/(^|\s)#.*$/, '').trim();
    if (!line) continue;
    const [pattern, ...owners] = line.split(/\s+/);
    rules.push({ pattern: patternToRegExp(pattern!), owners });
  }
  return rules;
}

/** The owners of `file` (a path from the repository root): the last matching rule wins; `[]` if none. */
export function ownersOf(rules: readonly CodeOwnersRule[], file: string): string[] {
  const path = file.replace(/\\/g, '/').replace(/^\.?\//, '');
  for (let i = rules.length - 1; i >= 0; i--) if (rules[i]!.pattern.test(path)) return [...rules[i]!.owners];
  return [];
}

/**
 * gitignore-style, as GitHub reads CODEOWNERS: a leading `/` or a `/` inside anchors at the root,
 * otherwise the pattern matches at any depth; a pattern matching a directory covers everything below
 * it, except `dir/*`, which covers only the files directly in it.
 */
function patternToRegExp(pattern: string): RegExp {
  const anchored = pattern.startsWith('/') || pattern.replace(/\/$/, '').includes('/');
  const trimmed = pattern.replace(/^\//, '').replace(/\/$/, '');
  const shallow = trimmed.endsWith('/*');
  let re = '';
  for (let i = 0; i < trimmed.length; i++) {
    const c = trimmed[i]!;
    if (c === '*' && trimmed[i + 1] === '*') {
      const slash = trimmed[i + 2] === '/';
      re += slash ? '(?:.*/)?' : '.*';
      i += slash ? 2 : 1;
    } else if (c === '*') re += '[^/]*';
    else if (c === '?') re += '[^/]';
    else re += c.replace(/[.+^${}()|[\]\\]/g, '\\$&');
  }
  return new RegExp(`^${anchored ? '' : '(?:.*/)?'}${re}${shallow ? '' : '(?:/.*)?'}$`);
}
