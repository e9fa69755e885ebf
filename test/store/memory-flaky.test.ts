import { SimulationStore } from '../../src/sim/memory-store.js';
import { flakyStoreContract } from './flaky-contract.js';

flakyStoreContract('simulation (in memory)', async () => new SimulationStore());
