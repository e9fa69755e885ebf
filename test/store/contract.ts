import type { Store } from '../../src/store/store.js';
import { boundsContract } from './bounds-contract.js';
import { inboxContract } from './inbox-contract.js';
import { leaseContract } from './lease-contract.js';
import { templateContract } from './template-contract.js';
import { orgContract } from './org-contract.js';
import { outboxContract } from './outbox-contract.js';
import { queueContract } from './queue-contract.js';
import { queueRowsContract } from './queue-rows-contract.js';
import { replicaRaceContract } from './replica-race-contract.js';
import { serverContract } from './server-contract.js';
import { targetContract } from './target-contract.js';
import { testCaseContract } from './test-case-contract.js';
import { aQueue, aTestCase, anEndedEntry, anEntry, anOrg } from './fixtures.js';

/**
 * The behaviour every Store adapter must have, one file per role (org-contract.ts, queue-contract.ts,
 * …) and here what spans roles. `openFresh` returns a new, empty store; each test gets its own and
 * closes it. `openPeer`, when the adapter can, opens another store on the data of
 * the last fresh one (as another process would).
 */
export function storeContract(name: string, openFresh: () => Promise<Store>, openPeer?: () => Promise<Store>): void {
  describe(`${name} store contract`, () => {
    let store: Store;
    beforeEach(async () => {
      store = await openFresh();
    });
    afterEach(async () => {
      await store.close();
    });

    it('answers ping', async () => {
      await expect(store.ping()).resolves.toBeUndefined();
    });

    orgContract(() => store);
    queueContract(() => store);
    queueRowsContract(() => store, openPeer);
    replicaRaceContract(() => store, openPeer);
    boundsContract(() => store);
    targetContract(() => store);
    testCaseContract(() => store);
    serverContract(() => store);
    leaseContract(() => store.leases);
    outboxContract(() => store);
    inboxContract(() => store);

    describe('isolation of returned and stored objects', () => {
      it('returns queues read-only: changing one in place throws, and the stored queue stays', async () => {
        const queue = aQueue();
        queue.entries = [anEntry(queue.id)];
        const stored = structuredClone(queue);
        await store.queues.insertQueue(queue);
        // insertQueue copies: the caller's object stays its own.
        queue.entries[0]!.state = 'MERGED';
        queue.settings.concurrency = 99;

        const read = (await store.queues.getQueueById(queue.id))!;
        expect(() => read.entries.push(anEntry(queue.id))).toThrow();
        expect(() => {
          read.settings.mode = 'parallel';
        }).toThrow();
        expect(() => {
          read.entries[0]!.history.length = 0;
        }).toThrow();
        expect(() => {
          (read as { branch: string }).branch = 'changed';
        }).toThrow();
        expect(await store.queues.getQueue(stored.repoKey, 'main')).toEqual(stored);
      });

      it('takes a committed queue over: it is frozen, so the stored queue cannot change behind the store', async () => {
        const queue = aQueue({ version: 1 });
        await store.queues.insertQueue(queue);
        const next = { ...queue, version: 2, entries: [anEntry(queue.id)] };
        expect(await store.queues.commitQueue(next, 1)).toBe(true);
        expect(() => {
          next.entries[0]!.state = 'MERGED';
        }).toThrow();
        expect((await store.queues.getQueueById(queue.id))?.entries[0]?.state).toBe('PENDING');
      });

      it('is not changed by mutating the other things it returned or was given', async () => {
        const queue = aQueue();
        await store.queues.insertQueue(queue);
        const org = anOrg({ owners: ['github.com/acme'] });
        await store.orgs.createOrg(org);
        (await store.orgs.getOrgById(org.id))!.owners.push('github.com/stolen');
        expect((await store.orgs.getOrgById(org.id))?.owners).toEqual(['github.com/acme']);

        const targets = ['a', 'b'];
        await store.targets.putImpactedTargets('github.com/acme/widgets', 1, 'sha', { all: false, targets });
        targets.push('c');
        const first = await store.targets.getImpactedTargets('github.com/acme/widgets', 1, 'sha');
        // What a store hands out may be frozen (the memory store shares it): a change then throws.
        attempt(() => first && !first.all && first.targets.push('d'));
        expect(await store.targets.getImpactedTargets('github.com/acme/widgets', 1, 'sha')).toEqual({ all: false, targets: ['a', 'b'] });

        const tc = aTestCase('github.com/acme/widgets');
        await store.tests.upsertTestCase(tc);
        (await store.tests.getTestCase(tc.repoKey, tc.testCaseId))!.codeowners.push('@someone');
        expect((await store.tests.getTestCase(tc.repoKey, tc.testCaseId))?.codeowners).toEqual([]);

        const ended = anEndedEntry(queue.id, { prNumber: 3 });
        await store.queues.commitQueue({ ...queue, version: 2 }, 1, { entries: [ended] });
        const archived = (await store.queues.latestArchivedEntry(queue.id, 3))!;
        attempt(() => (archived.history.length = 0));
        expect(await store.queues.latestArchivedEntry(queue.id, 3)).toEqual(ended);
      });
    });
    templateContract(() => store);
  });
}

/** Tries a change of something a store returned; a frozen one throws, which is as good. */
function attempt(change: () => unknown): void {
  try {
    change();
  } catch {
    // frozen
  }
}
