import type { Store } from '../../src/store/store.js';

/** The store with each role port (queues, targets, …) replaced by `wrap(port)`: to watch or fail its calls. */
export function mapRoles(store: Store, wrap: <T extends object>(port: T) => T): Store {
  return Object.fromEntries(Object.entries(store).map(([name, value]) => [name, typeof value === 'object' && value !== null ? wrap(value as object) : value])) as unknown as Store;
}
