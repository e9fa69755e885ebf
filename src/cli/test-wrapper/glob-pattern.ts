/**
 * A glob as a regular expression over `/`-separated paths: `*` and `?` stay within one path segment,
 * `**` spans segments, `{a,b}` is either, `[...]` a character class.
 */
export function globToRegExp(glob: string): RegExp {
  let re = '';
  let braces = 0;
  for (let i = 0; i < glob.length; i++) {
    const c = glob[i]!;
    if (c === '*') {
      if (glob[i + 1] === '*') {
        // `**/` matches zero or more whole segments; a trailing `**` anything below.
        const slash = glob[i + 2] === '/';
        re += slash ? '(?:.*/)?' : '.*';
        i += slash ? 2 : 1;
      } else re += '[^/]*';
    } else if (c === '?') re += '[^/]';
    else if (c === '{') {
      braces++;
      re += '(?:';
    } else if (c === '}' && braces > 0) {
      braces--;
      re += ')';
    } else if (c === ',' && braces > 0) re += '|';
    else if (c === '[') {
      const end = glob.indexOf(']', i + 1);
      if (end === -1) re += '\\[';
      else {
        const body = glob.slice(i + 1, end).replace(/^!/, '^').replace(/\\/g, '\\\\');
        re += `[${body}]`;
        i = end;
      }
    } else re += c.replace(/[.+^$()|\\/]/g, '\\$&');
  }
  return new RegExp(`^${re}$`);
}

/** The part of a glob before its first wildcard segment: where to start walking. */
export function globBase(glob: string): string {
  const segments = glob.split('/');
  const fixed: string[] = [];
  for (const s of segments.slice(0, -1)) {
    if (/[*?{[]/.test(s)) break;
    fixed.push(s);
  }
  return fixed.join('/') || (glob.startsWith('/') ? '/' : '.');
}
