import { openMemoryStore } from '../../src/store/memory/open-memory.js';
import type { Store } from '../../src/store/store.js';
import { inboxContract } from './inbox-contract.js';
import { outboxContract } from './outbox-contract.js';

describe('simulation (in memory) store', () => {
  let store: Store;
  beforeEach(() => {
    store = openMemoryStore();
  });
  outboxContract(() => store);
  inboxContract(() => store);
});
