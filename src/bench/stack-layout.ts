import { Random } from '../domain/random.js';
/** bench:github's stacks case: which PRs form stacks, and in which order their `/merge` comes. */

/**
 * Stacks of `min`–`max` members (seeded), alternately plain chains and native stacks, among `singles`
 * single PRs. `unit`: `/merge` on each stack's top member (the stack below lands with it as one unit);
 * `oneByOne`: the status quo, each member's `/merge` only once the member below merged.
 */
export interface StackLayout {
  count: number;
  min: number;
  max: number;
  singles: number;
  seed: number;
  landing: 'unit' | 'oneByOne';
}

/** The stacks (bottom up) and single PRs of a layout, numbered from 1, in a seeded order of arrival. */
export function layOut(layout: StackLayout): { stacks: { prs: number[]; native: boolean }[]; singles: number[]; order: number[][] } {
  const rng = new Random(layout.seed);
  const random = () => rng.next();
  const stacks: { prs: number[]; native: boolean }[] = [];
  let next = 1;
  for (let i = 0; i < layout.count; i++) {
    const size = layout.min + Math.floor(random() * (layout.max - layout.min + 1));
    stacks.push({ prs: Array.from({ length: size }, () => next++), native: i % 2 === 1 });
  }
  const singles = Array.from({ length: layout.singles }, () => next++);
  const order: number[][] = [...stacks.map((st) => st.prs), ...singles.map((n) => [n])];
  for (let i = order.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [order[i], order[j]] = [order[j]!, order[i]!];
  }
  return { stacks, singles, order };
}
