import { MemoryStore } from '../../src/store/memory/memory-store.js';
import { storeContract } from './contract.js';
import { flakyStoreContract } from './flaky-contract.js';

storeContract('memory', async () => new MemoryStore());
flakyStoreContract('memory', async () => new MemoryStore());
