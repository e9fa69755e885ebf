import picomatch from 'picomatch';

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
