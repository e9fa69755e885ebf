import type { Store } from '../store.js';
import { MemoryFlakyTables } from './memory-flaky-tables.js';
import { MemoryInbox } from './memory-inbox.js';
import { MemoryLeases } from './memory-leases.js';
import { MemoryOrgTables } from './memory-orgs.js';
import { MemoryOutbox } from './memory-outbox.js';
import { MemoryQueues } from './memory-queues.js';
import { MemoryServer } from './memory-server.js';
import { MemoryTargets } from './memory-targets.js';
import { MemoryTemplates } from './memory-templates.js';

/** The store of the simulator (and of tests that need no file): everything in one process's memory. */
export function openMemoryStore(): Store {
  const outbox = new MemoryOutbox();
  return {
    kind: 'memory',
    queues: new MemoryQueues(outbox),
    targets: new MemoryTargets(),
    orgs: new MemoryOrgTables(),
    tests: new MemoryFlakyTables(outbox),
    server: new MemoryServer(),
    leases: new MemoryLeases(),
    outbox,
    inbox: new MemoryInbox(),
    templates: new MemoryTemplates(),
    async ping() {},
    async close() {},
  };
}
