import picomatch from 'picomatch';
import type { QueueTemplate } from '../../domain/queue-template.js';

const MATCHERS = new Map<string, (branch: string) => boolean>();

/** Whether `branch` matches the glob `pattern`: `*` within one path segment, `**` across segments. */
export function branchMatches(pattern: string, branch: string): boolean {
  let matcher = MATCHERS.get(pattern);
  if (!matcher) {
    matcher = picomatch(pattern, { dot: true });
    if (MATCHERS.size > 1000) MATCHERS.clear();
    MATCHERS.set(pattern, matcher);
  }
  return matcher(branch);
}

/**
 * The template for `branch`: of those whose pattern matches, the most specific (the most characters
 * that are not wildcards; `release/1.*` before `release/*` before `**`), ties by pattern order.
 */
export function templateFor(templates: readonly QueueTemplate[], branch: string): QueueTemplate | null {
  const literal = (p: string) => p.replace(/[*?[\]{}()!+@]/g, '').length;
  const matching = templates.filter((t) => branchMatches(t.pattern, branch));
  matching.sort((a, b) => literal(b.pattern) - literal(a.pattern) || (a.pattern < b.pattern ? -1 : 1));
  return matching[0] ?? null;
}
