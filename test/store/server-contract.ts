import type { Store } from '../../src/store/store.js';
import { at } from './fixtures.js';

/** The server's own data: its secrets and the webhook delivery ids it claimed (called inside each adapter's contract suite, contract.ts). */
export function serverContract(open: () => Store): void {
  let store: Store;
  beforeEach(() => {
  store = open();
  });

  describe('secrets', () => {
    it('creates a secret once and answers the same value afterwards', async () => {
      let calls = 0;
      const create = () => `value-${++calls}`;
      expect(await store.server.getOrCreateSecret('page-token-key', create)).toBe('value-1');
      expect(await store.server.getOrCreateSecret('page-token-key', create)).toBe('value-1');
      expect(calls).toBe(1);
      expect(await store.server.getOrCreateSecret('other-key', () => 'other')).toBe('other');
    });

    it('gives concurrent first callers the same value', async () => {
      const values = await Promise.all(
        Array.from({ length: 8 }, (_, i) => store.server.getOrCreateSecret('shared', () => `candidate-${i}`)),
      );
      expect(new Set(values).size).toBe(1);
      expect(values[0]).toMatch(/^candidate-\d$/);
    });
  });

  describe('webhook deliveries', () => {
    it('claims a delivery id once', async () => {
      expect(await store.server.claimWebhookDelivery('delivery-1', at(1), at(0))).toBe(true);
      expect(await store.server.claimWebhookDelivery('delivery-1', at(2), at(0))).toBe(false);
      expect(await store.server.claimWebhookDelivery('delivery-2', at(3), at(0))).toBe(true);
    });

    it('forgets ids seen before keepSince, so they can be claimed again', async () => {
      expect(await store.server.claimWebhookDelivery('old', at(1), at(0))).toBe(true);
      expect(await store.server.claimWebhookDelivery('recent', at(10), at(0))).toBe(true);
      expect(await store.server.claimWebhookDelivery('other', at(20), at(5))).toBe(true);
      expect(await store.server.claimWebhookDelivery('old', at(21), at(5))).toBe(true);
      expect(await store.server.claimWebhookDelivery('recent', at(22), at(5))).toBe(false);
    });

    it('claims a released id again (its handling failed)', async () => {
      expect(await store.server.claimWebhookDelivery('failed', at(1), at(0))).toBe(true);
      await store.server.releaseWebhookDelivery('failed');
      expect(await store.server.claimWebhookDelivery('failed', at(2), at(0))).toBe(true);
      expect(await store.server.claimWebhookDelivery('failed', at(3), at(0))).toBe(false);
      await store.server.releaseWebhookDelivery('never-claimed');
    });

    it('gives exactly one of concurrent claims of an id', async () => {
      const claims = await Promise.all(
        Array.from({ length: 5 }, (_, i) => store.server.claimWebhookDelivery('shared', at(i), at(0))),
      );
      expect(claims.filter((c) => c)).toHaveLength(1);
    });
  });
}
