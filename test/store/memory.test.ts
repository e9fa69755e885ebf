import { openMemoryStore } from '../../src/store/memory/open-memory.js';
import { storeContract } from './contract.js';
import { flakyStoreContract } from './flaky-contract.js';

storeContract('memory', async () => openMemoryStore());
flakyStoreContract('memory', async () => openMemoryStore());
