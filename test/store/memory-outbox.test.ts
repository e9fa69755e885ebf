import { MemoryStore } from '../../src/store/memory/memory-store.js';
import type { Store } from '../../src/store/store.js';
import { inboxContract } from './inbox-contract.js';
import { outboxContract } from './outbox-contract.js';

describe('simulation (in memory) store', () => {
  let store: Store;
  beforeEach(() => {
    store = new MemoryStore();
  });
  outboxContract(() => store);
  inboxContract(() => store);
});
