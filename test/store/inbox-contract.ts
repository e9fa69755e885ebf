import type { InboxDelivery } from '../../src/store/inbox-store.js';
import type { Store } from '../../src/store/store.js';
import { at } from './fixtures.js';

/** The GitHub webhook inbox: one row per delivery id, claimed by compare-and-set, retried, pruned. */
export function inboxContract(store: () => Store): void {
  describe('GitHub webhook inbox', () => {
    const received = (id: string, overrides: Partial<InboxDelivery> = {}): InboxDelivery => ({
      id,
      name: 'push',
      payload: '{"ref":"refs/heads/main"}',
      receivedAt: at(0),
      status: 'pending',
      attempts: 0,
      nextAttemptAt: at(0),
      lastError: null,
      ...overrides,
    });

    it('stores a delivery once: a redelivery is refused while it is pending or done, and revives it once given up', async () => {
      const inbox = store().inbox;
      expect(await inbox.acceptInbound(received('d-1'))).toBe(true);
      expect(await inbox.acceptInbound(received('d-1', { payload: '{"other":1}' }))).toBe(false);
      expect((await inbox.dueInbound(at(0), 10)).map((d) => d.payload)).toEqual(['{"ref":"refs/heads/main"}']);
      await inbox.putInbound(received('d-1', { status: 'done', payload: '', attempts: 1 }));
      expect(await inbox.acceptInbound(received('d-1'))).toBe(false);
      expect(await inbox.dueInbound(at(0), 10)).toEqual([]);
      await inbox.putInbound(received('d-1', { status: 'failed', attempts: 9, lastError: 'boom' }));
      expect(await inbox.acceptInbound(received('d-1', { nextAttemptAt: at(5) }))).toBe(true);
      expect(await inbox.dueInbound(at(5), 10)).toEqual([received('d-1', { nextAttemptAt: at(5) })]);
    });

    it('lists due deliveries oldest first; a claim holds for one caller until it lapses', async () => {
      const inbox = store().inbox;
      await inbox.acceptInbound(received('d-late', { receivedAt: at(2), nextAttemptAt: at(2) }));
      await inbox.acceptInbound(received('d-early', { receivedAt: at(1), nextAttemptAt: at(1) }));
      await inbox.acceptInbound(received('d-later', { receivedAt: at(3), nextAttemptAt: at(9) }));
      expect((await inbox.dueInbound(at(5), 10)).map((d) => d.id)).toEqual(['d-early', 'd-late']);
      expect(await inbox.claimInbound('d-early', at(1), at(7))).toBe(true);
      expect(await inbox.claimInbound('d-early', at(1), at(7))).toBe(false);
      expect((await inbox.dueInbound(at(5), 10)).map((d) => d.id)).toEqual(['d-late']);
      expect((await inbox.dueInbound(at(7), 1)).map((d) => d.id)).toEqual(['d-late']);
    });

    it('prunes only handled and given-up deliveries received before the cut', async () => {
      const inbox = store().inbox;
      await inbox.acceptInbound(received('d-done'));
      await inbox.putInbound(received('d-done', { status: 'done', payload: '' }));
      await inbox.acceptInbound(received('d-pending'));
      await inbox.acceptInbound(received('d-new', { receivedAt: at(5) }));
      await inbox.putInbound(received('d-new', { receivedAt: at(5), status: 'done', payload: '' }));
      expect(await inbox.pruneInbound(at(1))).toBe(1);
      expect(await inbox.acceptInbound(received('d-done'))).toBe(true);
      expect(await inbox.acceptInbound(received('d-new'))).toBe(false);
      expect(await inbox.acceptInbound(received('d-pending'))).toBe(false);
    });
  });
}
