import type { LeaseStore } from '../../src/store/lease-store.js';

const T = 1_800_000_000_000;

/** The lease cases every store adapter passes (called inside each adapter's contract suite). */
export function leaseContract(store: () => LeaseStore): void {
  describe('leases', () => {
    it('gives a free lease to its first taker, renews it for that holder, and refuses another while it runs', async () => {
      expect(await store().takeLease('queue:a', 'one', T, T + 30_000)).toEqual({ name: 'queue:a', holder: 'one', expiresAt: T + 30_000 });
      expect(await store().takeLease('queue:a', 'two', T + 29_999, T + 59_999)).toEqual({ name: 'queue:a', holder: 'one', expiresAt: T + 30_000 });
      expect(await store().takeLease('queue:a', 'one', T + 10_000, T + 40_000)).toEqual({ name: 'queue:a', holder: 'one', expiresAt: T + 40_000 });
      expect((await store().takeLease('queue:a', 'two', T + 39_999, T + 69_999)).holder).toBe('one');
    });

    it('lets another holder take a lease once its time ran out', async () => {
      await store().takeLease('queue:a', 'one', T, T + 30_000);
      expect(await store().takeLease('queue:a', 'two', T + 30_000, T + 60_000)).toEqual({ name: 'queue:a', holder: 'two', expiresAt: T + 60_000 });
      expect((await store().takeLease('queue:a', 'one', T + 30_001, T + 60_001)).holder).toBe('two');
    });

    it('frees a lease released by its holder at once, and ignores a release by anyone else', async () => {
      await store().takeLease('queue:a', 'one', T, T + 30_000);
      await store().releaseLease('queue:a', 'two');
      expect((await store().takeLease('queue:a', 'two', T + 1, T + 30_001)).holder).toBe('one');
      await store().releaseLease('queue:a', 'one');
      expect((await store().takeLease('queue:a', 'two', T + 2, T + 30_002)).holder).toBe('two');
    });

    it('keeps the leases of different names apart', async () => {
      await store().takeLease('queue:a', 'one', T, T + 30_000);
      expect((await store().takeLease('queue:b', 'two', T, T + 30_000)).holder).toBe('two');
      await store().releaseLease('queue:b', 'two');
      expect((await store().takeLease('queue:a', 'two', T + 1, T + 30_001)).holder).toBe('one');
    });

    it('gives a free lease to exactly one of concurrent takers', async () => {
      const holders = ['one', 'two', 'three', 'four'];
      const answers = await Promise.all(holders.map((h) => store().takeLease('queue:a', h, T, T + 30_000)));
      const winner = answers[0]!.holder;
      expect(holders).toContain(winner);
      expect(answers.map((a) => a.holder)).toEqual(holders.map(() => winner));
    });
  });
}
