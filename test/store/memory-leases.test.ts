import { MemoryLeases } from '../../src/store/memory/memory-leases.js';
import { leaseContract } from './lease-contract.js';

let leases: MemoryLeases;
beforeEach(() => {
  leases = new MemoryLeases();
});
describe('memory leases', () => {
  leaseContract(() => leases);
});
