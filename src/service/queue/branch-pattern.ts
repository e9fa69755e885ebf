import { branchMatches } from '../../domain/branch-glob.js';
import type { QueueTemplate } from '../../domain/queue-template.js';

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
