const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/**
 * Why `name` cannot be a git branch name (git check-ref-format's rules, plus a well-formed UTF-16
 * string), or null when it can. Branch names become test branch refs (`mergeq/<branch>/<run>`) and
 * URL paths on the git host, so anything git would refuse is refused at the door.
 */
export function refNameProblem(name: string): string | null {
  if (LONE_SURROGATE.test(name)) return 'must not contain a lone surrogate (invalid Unicode)';
  // eslint-disable-next-line no-control-regex
  if (/[\u0000-\u001f\u007f]/.test(name)) return 'must not contain control characters';
  if (/[ ~^:?*[\\]/.test(name)) return 'must not contain a space or any of ~ ^ : ? * [ \\';
  if (name.includes('..')) return 'must not contain ".."';
  if (name.includes('@{')) return 'must not contain "@{"';
  if (name.includes('//')) return 'must not contain "//"';
  if (name === '@') return 'must not be "@"';
  if (name.startsWith('-')) return 'must not start with "-"';
  if (name.startsWith('/') || name.endsWith('/')) return 'must not start or end with "/"';
  if (name.endsWith('.')) return 'must not end with "."';
  if (name.endsWith('.lock')) return 'must not end with ".lock"';
  if (name.split('/').some((part) => part.startsWith('.') || part.endsWith('.lock'))) {
    return 'no part between slashes may start with "." or end with ".lock"';
  }
  return null;
}
