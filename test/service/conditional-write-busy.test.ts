import { openMemoryStore } from '../../src/store/memory/open-memory.js';
import { MAX_WRITE_CONFLICTS, type Store } from '../../src/store/store.js';
import { WebhookService } from '../../src/service/webhooks/webhook-service.js';
import { FlakyTestService } from '../../src/service/flaky/flaky-test-service.js';
import { ServiceError } from '../../src/service/errors.js';
import { anOrg, at } from '../store/fixtures.js';

const clock = { now: () => new Date(at(10)) };
const org = anOrg({ owners: ['github.com/acme'] });

describe('a shared record that another writer changes before every write', () => {
  it(`is answered 503 busy after ${MAX_WRITE_CONFLICTS} tries, not 500, and not written`, async () => {
    const store = openMemoryStore();
    const sub = {
      id: 'wh_1', orgId: org.id, url: 'http://127.0.0.1:9/hook', format: 'standard' as const, events: ['*'], repo: null, repoKey: null, branch: null,
      description: null, secret: 'whsec_c2VjcmV0', enabled: true, disabledReason: null, failingSince: null, createdAt: at(0), updatedAt: at(0),
    };
    await store.outbox.insertSubscription(sub);
    let writes = 0;
    // Another writer changes the URL between each read and write of this update.
    const outbox = Object.create(store.outbox) as Store['outbox'];
    outbox.updateSubscription = async (id, expected, changes) => {
      writes++;
      await store.outbox.putSubscription({ ...(await store.outbox.getSubscription(id))!, url: `http://127.0.0.1:9/other-${writes}` });
      return store.outbox.updateSubscription(id, expected, changes);
    };
    const service = new WebhookService({ store: { outbox, server: store.server }, clock, allowedNetworks: ['127.0.0.0/8'] });

    const refused = service.update(org, { id: sub.id, url: 'http://127.0.0.1:9/mine' });

    await expect(refused).rejects.toBeInstanceOf(ServiceError);
    await expect(refused).rejects.toMatchObject({ status: 503, code: 'busy' });
    expect(writes).toBe(MAX_WRITE_CONFLICTS);
    expect((await store.outbox.getSubscription(sub.id))?.url).toBe(`http://127.0.0.1:9/other-${MAX_WRITE_CONFLICTS}`);
  });

  it('flaky settings changed by another writer before every write: 503 busy', async () => {
    const store = openMemoryStore();
    const tests = Object.create(store.tests) as Store['tests'];
    let n = 0;
    tests.updateFlakySettings = async (key, expected, next) => {
      await store.tests.putFlakySettings(key, { ...next, brokenRuns: 100 + n++ });
      return store.tests.updateFlakySettings(key, expected, next);
    };
    await expect(new FlakyTestService({ store: { tests }, clock }).updateSettings(org, { host: 'github.com', owner: 'acme', name: 'app' }, { brokenRuns: 2 })).rejects.toMatchObject({
      status: 503,
      code: 'busy',
    });
  });
});
