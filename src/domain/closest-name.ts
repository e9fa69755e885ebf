/** Edits (insert, delete, substitute) between two strings. */
export function levenshtein(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++) {
      current[j] = Math.min(previous[j]! + 1, current[j - 1]! + 1, previous[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
    }
    previous = current;
  }
  return previous[b.length]!;
}

/**
 * The known name a misspelled `name` most likely meant, ignoring letter case and `_`/`-`: a known name
 * containing each of its words (`branch` → `targetBranch` although `batch` is fewer edits away,
 * `batchSize` → `batchingMinSize`), the shortest such; else a known name it contains; else the fewest edits. Null when nothing is
 * close (more edits than a third of the name, at least 2).
 */
export function closestName(name: string, known: readonly string[]): string | null {
  const plain = (s: string) => s.toLowerCase().replace(/[_-]/g, '');
  const wanted = plain(name);
  if (wanted.length < 3) return null;
  const words = name.split(/[_-]+|(?<=[a-z0-9])(?=[A-Z])/).map(plain).filter(Boolean);
  const containing = known.filter((k) => words.every((w) => plain(k).includes(w)));
  if (containing.length > 0) return containing.sort((x, y) => x.length - y.length)[0]!;
  // `repository` → `repo`, `concurrencyLimit` → `concurrency`: the longest known name inside it.
  const inside = known.filter((k) => plain(k).length >= 3 && wanted.includes(plain(k)));
  if (inside.length > 0) return inside.sort((x, y) => y.length - x.length)[0]!;
  const ranked = known.map((k) => ({ k, d: levenshtein(wanted, plain(k)) })).sort((x, y) => x.d - y.d);
  const best = ranked[0];
  return best && best.d <= Math.max(2, Math.floor(wanted.length / 3)) ? best.k : null;
}
