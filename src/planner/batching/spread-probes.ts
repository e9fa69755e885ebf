/**
 * Places up to `budget` new points strictly between `lo` and `hi`, beside the points `inFlight`
 * already there, so that the largest segment left between neighbouring points is as small as possible.
 * With nothing in flight this is the even split of a (budget+1)-ary search: segments of
 * ceil or floor of (hi - lo) / (budget + 1). Returns the new points in ascending order; fewer than
 * `budget` when every length in between is taken.
 */
export function spreadProbes(lo: number, hi: number, inFlight: readonly number[], budget: number): number[] {
  const bounds = [lo, ...inFlight.filter((p) => p > lo && p < hi).sort((a, b) => a - b), hi];
  const gaps = bounds.slice(1).map((end, i) => ({ start: bounds[i]!, size: end - bounds[i]!, added: 0 }));

  // Each new point goes to the gap whose largest segment is currently the largest (the earliest on a
  // tie); a gap of size g has room for g - 1 points.
  for (let placed = 0; placed < budget; placed++) {
    let best: (typeof gaps)[number] | undefined;
    let bestSegment = 1;
    for (const gap of gaps) {
      const segment = Math.ceil(gap.size / (gap.added + 1));
      if (gap.added + 1 < gap.size && segment > bestSegment) {
        best = gap;
        bestSegment = segment;
      }
    }
    if (best === undefined) break;
    best.added++;
  }

  const points: number[] = [];
  for (const gap of gaps) {
    for (let j = 1; j <= gap.added; j++) points.push(gap.start + Math.floor((j * gap.size) / (gap.added + 1)));
  }
  return points;
}
