import type { Store } from '../../src/store/store.js';
import { at } from './fixtures.js';

/** Impacted-target lists: stored per PR head, used and pruned (called inside each adapter's contract suite, contract.ts). */
export function targetContract(open: () => Store): void {
  let store: Store;
  beforeEach(() => {
  store = open();
  });

  describe('retention of impacted targets', () => {
    const repo = 'github.com/acme/widgets';
    const list = (n: number, prefix: string) => ({ all: false as const, targets: Array.from({ length: n }, (_, i) => `${prefix}${i}`) });

    it('prunes the lists not put or marked used since a time; a used list stays', async () => {
      await store.targets.putImpactedTargets(repo, 1, 'sha-queued', list(3, 'a'), { at: at(0) });
      await store.targets.putImpactedTargets(repo, 2, 'sha-gone', list(3, 'b'), { at: at(0) });
      await store.targets.putImpactedTargets(repo, 3, 'sha-new', { all: true }, { at: at(20) });
      await store.targets.touchImpactedTargets(repo, [{ prNumber: 1, sha: 'sha-queued' }, { prNumber: 9, sha: 'never-put' }], at(15));
      // A touch never moves a list's use back in time.
      await store.targets.touchImpactedTargets(repo, [{ prNumber: 3, sha: 'sha-new' }], at(1));

      expect(await store.targets.pruneImpactedTargets(at(10))).toBe(1);
      expect(await store.targets.getImpactedTargets(repo, 2, 'sha-gone')).toBeNull();
      expect(await store.targets.getImpactedTargets(repo, 1, 'sha-queued')).toEqual(list(3, 'a'));
      expect(await store.targets.getImpactedTargets(repo, 3, 'sha-new')).toEqual({ all: true });
      expect(await store.targets.pruneImpactedTargets(at(16))).toBe(1);
      expect(await store.targets.getImpactedTargets(repo, 1, 'sha-queued')).toBeNull();
      expect(await store.targets.getImpactedTargets(repo, 3, 'sha-new')).toEqual({ all: true });
    });

    it("caps the bytes a repository holds: its least recently used lists go first, never the one just put, never another repository's", async () => {
      const other = 'github.com/acme/other';
      await store.targets.putImpactedTargets(other, 1, 'sha-x', list(100, 'x'), { at: at(0) });
      await store.targets.putImpactedTargets(repo, 1, 'sha-1', list(100, 'a'), { at: at(1) }); // ~290 bytes each
      await store.targets.putImpactedTargets(repo, 2, 'sha-2', list(100, 'b'), { at: at(2) });
      await store.targets.touchImpactedTargets(repo, [{ prNumber: 1, sha: 'sha-1' }], at(3));
      await store.targets.putImpactedTargets(repo, 3, 'sha-3', list(100, 'c'), { at: at(4), maxBytesPerRepo: 700 });

      expect(await store.targets.getImpactedTargets(repo, 2, 'sha-2')).toBeNull();
      expect(await store.targets.getImpactedTargets(repo, 1, 'sha-1')).toEqual(list(100, 'a'));
      expect(await store.targets.getImpactedTargets(repo, 3, 'sha-3')).toEqual(list(100, 'c'));
      expect(await store.targets.getImpactedTargets(other, 1, 'sha-x')).toEqual(list(100, 'x'));

      // A single list over the cap is kept: it is the one just put.
      await store.targets.putImpactedTargets(repo, 4, 'sha-4', list(1000, 'd'), { at: at(5), maxBytesPerRepo: 700 });
      expect(await store.targets.getImpactedTargets(repo, 4, 'sha-4')).toEqual(list(1000, 'd'));
      expect(await store.targets.getImpactedTargets(repo, 1, 'sha-1')).toBeNull();
      expect(await store.targets.getImpactedTargets(repo, 3, 'sha-3')).toBeNull();
    });
  });

  describe('impacted targets', () => {
    const repo = 'github.com/acme/widgets';

    it('stores ALL and an empty list, and answers null for a head it has nothing for', async () => {
      await store.targets.putImpactedTargets(repo, 1, 'sha-a', { all: true });
      await store.targets.putImpactedTargets(repo, 2, 'sha-b', { all: false, targets: [] });
      expect(await store.targets.getImpactedTargets(repo, 1, 'sha-a')).toEqual({ all: true });
      expect(await store.targets.getImpactedTargets(repo, 2, 'sha-b')).toEqual({ all: false, targets: [] });
      expect(await store.targets.getImpactedTargets(repo, 1, 'sha-other')).toBeNull();
      expect(await store.targets.getImpactedTargets('github.com/acme/other', 1, 'sha-a')).toBeNull();
    });

    it('round-trips names exactly, including unusual characters', async () => {
      const targets = ['//app:lib', 'ünïcödé/目标', 'with space', 'line\nbreak', '', 'tab\there', '"quoted"'];
      await store.targets.putImpactedTargets(repo, 3, 'sha-c', { all: false, targets });
      expect(await store.targets.getImpactedTargets(repo, 3, 'sha-c')).toEqual({ all: false, targets });
    });

    it('round-trips a 300,000-name list in order', async () => {
      const targets = Array.from({ length: 300_000 }, (_, i) => `//services/component-${i % 977}/module:target_${i}_with_a_longer_name`);
      await store.targets.putImpactedTargets(repo, 4, 'sha-big', { all: false, targets });
      const read = await store.targets.getImpactedTargets(repo, 4, 'sha-big');
      expect(read?.all).toBe(false);
      expect(read && !read.all && read.targets.length).toBe(300_000);
      expect(read).toEqual({ all: false, targets });
    });

    it('replaces the list of a head when it is set again', async () => {
      const big = Array.from({ length: 120_000 }, (_, i) => `t${i}`);
      await store.targets.putImpactedTargets(repo, 5, 'sha-d', { all: false, targets: big });
      await store.targets.putImpactedTargets(repo, 5, 'sha-d', { all: false, targets: ['only'] });
      expect(await store.targets.getImpactedTargets(repo, 5, 'sha-d')).toEqual({ all: false, targets: ['only'] });
      await store.targets.putImpactedTargets(repo, 5, 'sha-d', { all: true });
      expect(await store.targets.getImpactedTargets(repo, 5, 'sha-d')).toEqual({ all: true });
      await store.targets.putImpactedTargets(repo, 5, 'sha-d', { all: false, targets: big });
      expect(await store.targets.getImpactedTargets(repo, 5, 'sha-d')).toEqual({ all: false, targets: big });
    });

    it('keeps the lists of different heads and PRs apart', async () => {
      await store.targets.putImpactedTargets(repo, 6, 'sha-old', { all: false, targets: ['a'] });
      await store.targets.putImpactedTargets(repo, 6, 'sha-new', { all: false, targets: ['b', 'c'] });
      await store.targets.putImpactedTargets(repo, 7, 'sha-old', { all: true });
      expect(await store.targets.getImpactedTargets(repo, 6, 'sha-old')).toEqual({ all: false, targets: ['a'] });
      expect(await store.targets.getImpactedTargets(repo, 6, 'sha-new')).toEqual({ all: false, targets: ['b', 'c'] });
      expect(await store.targets.getImpactedTargets(repo, 7, 'sha-old')).toEqual({ all: true });
    });
  });
}
