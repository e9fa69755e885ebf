import { openMemoryStore } from '../../src/store/memory/open-memory.js';
import { storeContract } from './contract.js';

storeContract('memory', async () => openMemoryStore());
