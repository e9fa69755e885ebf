import { SimulationStore } from '../../src/sim/memory-store.js';
import type { Store } from '../../src/store/store.js';
import { outboxContract } from './outbox-contract.js';

describe('simulation (in memory) store', () => {
  let store: Store;
  beforeEach(() => {
    store = new SimulationStore();
  });
  outboxContract(() => store);
});
