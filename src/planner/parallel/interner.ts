import type { ImpactedTargets, TargetSet } from '../../domain/targets.js';

/**
 * Gives each impacted-target name of one queue a dense integer id (0, 1, 2, ...), so that target
 * sets become sorted Uint32Arrays that intersect by merging numbers instead of comparing strings.
 *
 * Ids depend on the order names were first seen, so they must never leave the process: they mean
 * nothing to another interner. Dependencies computed from them do not depend on that order.
 */
export class TargetInterner {
  private readonly ids = new Map<string, number>();
  private readonly names: string[] = [];

  /** Number of distinct names seen; every id is below it. */
  get size(): number {
    return this.names.length;
  }

  intern(name: string): number {
    let id = this.ids.get(name);
    if (id === undefined) {
      id = this.names.length;
      this.ids.set(name, id);
      this.names.push(name);
    }
    return id;
  }

  /** The id of a name already seen, without interning it. */
  idOf(name: string): number | undefined {
    return this.ids.get(name);
  }

  nameOf(id: number): string {
    const name = this.names[id];
    if (name === undefined) throw new RangeError(`unknown target id ${id}`);
    return name;
  }

  /** Sorted, de-duplicated ids of the targets (interning new names), or 'ALL'. */
  toTargetSet(targets: ImpactedTargets): TargetSet {
    if (targets.all) return 'ALL';
    const list = targets.targets;
    const ids = new Uint32Array(list.length);
    for (let i = 0; i < list.length; i++) ids[i] = this.intern(list[i]!);
    ids.sort();
    const count = dedupeSorted(ids);
    // Copy when duplicates were dropped, so the spare tail of a large list is not kept alive.
    return count === ids.length ? ids : ids.slice(0, count);
  }

  /** The names of a target set, in id order. */
  namesOf(set: TargetSet): ImpactedTargets {
    if (set === 'ALL') return { all: true };
    return { all: false, targets: Array.from(set, (id) => this.nameOf(id)) };
  }
}

/** Moves the distinct values of a sorted array to its front; returns how many there are. */
function dedupeSorted(ids: Uint32Array): number {
  if (ids.length === 0) return 0;
  let count = 1;
  for (let i = 1; i < ids.length; i++) {
    const id = ids[i]!;
    if (id !== ids[count - 1]) ids[count++] = id;
  }
  return count;
}
