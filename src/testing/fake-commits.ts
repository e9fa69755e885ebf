/**
 * The fake GitHub's commits: a commit is the set of PR numbers whose changes it holds, with its
 * parents (first parent first) and message. Merges and "is it contained" are set operations; two PRs
 * declared conflicting cannot stand in one commit; fast-forwards follow the parents.
 */
export class FakeCommits {
  private readonly content = new Map<string, Set<number>>([['base0', new Set()]]);
  private readonly parents = new Map<string, string[]>([['base0', []]]);
  private readonly messages = new Map<string, string>();
  private readonly conflicts: [number, number][] = [];

  /** `next()` names a new merge commit (shared with the fake's other ids, so numbering stays as it was). */
  constructor(private readonly next: () => number) {}

  has(sha: string): boolean {
    return this.content.has(sha);
  }

  /** A commit holding `changes` on top of `parent` (a PR head, or a change pushed from outside). */
  add(sha: string, changes: number[], parent: string): void {
    this.content.set(sha, new Set(changes));
    this.parents.set(sha, [parent]);
  }

  conflict(a: number, b: number): void {
    this.conflicts.push([a, b]);
  }

  /** The PRs a commit holds, in number order. */
  contentOf(sha: string): number[] {
    return [...(this.content.get(sha) ?? [])].sort((a, b) => a - b);
  }

  /** Whether `head` holds nothing that `base` lacks. */
  contains(base: string, head: string): boolean {
    const have = this.content.get(base)!;
    return [...this.content.get(head)!].every((n) => have.has(n));
  }

  /** As GET …/git/commits/{sha} answers it; null for an unknown commit. */
  describe(sha: string): { sha: string; message: string; parents: { sha: string }[] } | null {
    if (!this.content.has(sha)) return null;
    return { sha, message: this.messages.get(sha) ?? '', parents: (this.parents.get(sha) ?? []).map((p) => ({ sha: p })) };
  }

  /** A new merge commit of `b` into `a` holding both; null when two PRs in it conflict. */
  merge(a: string, b: string, message = ''): string | null {
    const content = new Set([...this.content.get(a)!, ...this.content.get(b)!]);
    if (this.conflicts.some(([x, y]) => content.has(x) && content.has(y))) return null;
    const sha = `c${this.next()}`;
    this.content.set(sha, content);
    this.parents.set(sha, [a, b]);
    if (message) this.messages.set(sha, message);
    return sha;
  }

  /** Whether `ancestor` is `sha` or reachable from it through parents. */
  isAncestor(ancestor: string, sha: string): boolean {
    const seen = new Set<string>();
    const stack = [sha];
    while (stack.length > 0) {
      const c = stack.pop()!;
      if (c === ancestor) return true;
      if (seen.has(c)) continue;
      seen.add(c);
      stack.push(...(this.parents.get(c) ?? []));
    }
    return false;
  }
}
