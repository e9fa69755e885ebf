import type { StackPlace } from '../domain/entry.js';

/**
 * `kind`: how the git host knows it (`declared`: named by a REST caller); `number`: GitHub's stack
 * number (null for a plain chain or a declared stack); `members`: the PRs of the stack in the queue,
 * bottom up, and `size` their count — the unit queued, tested and landed together (both null for an
 * entry read from the archive).
 */
export interface StackRecord {
  id: string;
  number: number | null;
  kind: 'native' | 'chain' | 'declared';
  position: number;
  size: number | null;
  members: number[] | null;
}

/** The record of an entry's place in its stack, with the members of its unit bottom up (null: not known). */
export function toStackRecord(place: StackPlace, members: number[] | null): StackRecord {
  return {
    id: place.id,
    number: place.number ?? null,
    kind: place.kind ?? 'declared',
    position: place.position,
    size: members ? members.length : null,
    members,
  };
}

/** Which stack, in words: GitHub's number for a native stack, else its id (`chain:12`, `declared:12`), which says its kind. */
export function stackName(stack: StackRecord): string {
  return stack.number !== null ? `#${stack.number} (native)` : stack.id;
}

/** A member's place in its stack, in words: `#7 (native), layer 2 of 3: #11, #12, #13`. */
export function describeStack(stack: StackRecord): string {
  const of = stack.size !== null ? ` of ${stack.size}` : '';
  const members = stack.members ? `: ${stack.members.map((n) => `#${n}`).join(', ')}` : '';
  return `${stackName(stack)}, layer ${stack.position}${of}${members}`;
}
