import { ConflictError } from '../../src/store/errors.js';
import type { Store } from '../../src/store/store.js';
import { queueRowsContract } from './queue-rows-contract.js';
import { inboxContract } from './inbox-contract.js';
import { outboxContract } from './outbox-contract.js';
import { leaseContract } from './lease-contract.js';
import { aQueue, aRun, aTestCase, aToken, anEndedEntry, anEntry, anOrg, at } from './fixtures.js';

/**
 * The behaviour every Store adapter must have. `openFresh` returns a new, empty store; each test
 * gets its own and closes it. `openPeer`, when the adapter can, opens another store on the data of
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

    describe('organizations', () => {
      it('finds an organization by id, slug and each owner', async () => {
        const org = anOrg({ slug: 'acme', owners: ['github.com/acme', 'github.com/acme-labs'] });
        await store.orgs.createOrg(org);
        expect(await store.orgs.getOrgById(org.id)).toEqual(org);
        expect(await store.orgs.getOrgBySlug('acme')).toEqual(org);
        expect(await store.orgs.findOrgByOwner('github.com/acme-labs')).toEqual(org);
        expect(await store.orgs.getOrgBySlug('other')).toBeNull();
        expect(await store.orgs.getOrgById('missing')).toBeNull();
        expect(await store.orgs.findOrgByOwner('github.com/other')).toBeNull();
      });

      it('lists every organization by slug, with its owners', async () => {
        expect(await store.orgs.listOrgs()).toEqual([]);
        const zeta = anOrg({ slug: 'zeta', owners: ['github.com/zeta'] });
        const acme = anOrg({ slug: 'acme', owners: ['github.com/acme', 'github.com/acme-labs'] });
        await store.orgs.createOrg(zeta);
        await store.orgs.createOrg(acme);
        expect(await store.orgs.listOrgs()).toEqual([acme, zeta]);
      });

      it('refuses a taken slug and stores nothing of the refused organization', async () => {
        await store.orgs.createOrg(anOrg({ slug: 'acme', owners: ['github.com/acme'] }));
        const twin = anOrg({ slug: 'acme', owners: ['github.com/twin'] });
        await expect(store.orgs.createOrg(twin)).rejects.toThrow(ConflictError);
        expect(await store.orgs.getOrgById(twin.id)).toBeNull();
        expect(await store.orgs.findOrgByOwner('github.com/twin')).toBeNull();
      });

      it('refuses an owner that another organization has', async () => {
        const first = anOrg({ owners: ['github.com/acme'] });
        await store.orgs.createOrg(first);
        const second = anOrg({ owners: ['github.com/mine', 'github.com/acme'] });
        await expect(store.orgs.createOrg(second)).rejects.toThrow(ConflictError);
        expect(await store.orgs.getOrgById(second.id)).toBeNull();
        expect(await store.orgs.findOrgByOwner('github.com/mine')).toBeNull();
        expect((await store.orgs.findOrgByOwner('github.com/acme'))?.id).toBe(first.id);
      });

      it('keeps organizations without owners apart', async () => {
        const a = anOrg({ owners: [] });
        const b = anOrg({ owners: [] });
        await store.orgs.createOrg(a);
        await store.orgs.createOrg(b);
        expect(await store.orgs.getOrgById(b.id)).toEqual(b);
      });

      it('adds an owner once, and refuses one that another organization has', async () => {
        const acme = anOrg({ owners: ['github.com/acme'] });
        const other = anOrg({ owners: ['github.com/other'] });
        await store.orgs.createOrg(acme);
        await store.orgs.createOrg(other);

        await store.orgs.addOrgOwner(acme.id, 'github.com/acme-labs');
        await store.orgs.addOrgOwner(acme.id, 'github.com/acme-labs');
        expect((await store.orgs.getOrgById(acme.id))?.owners).toEqual(['github.com/acme', 'github.com/acme-labs']);
        expect((await store.orgs.findOrgByOwner('github.com/acme-labs'))?.id).toBe(acme.id);

        await expect(store.orgs.addOrgOwner(acme.id, 'github.com/other')).rejects.toThrow(ConflictError);
        expect((await store.orgs.findOrgByOwner('github.com/other'))?.id).toBe(other.id);
        expect((await store.orgs.getOrgById(acme.id))?.owners).not.toContain('github.com/other');
      });
    });

    describe('tokens', () => {
      it('finds a token by hash and by id', async () => {
        const token = aToken('org-1');
        await store.orgs.createToken(token);
        expect(await store.orgs.findTokenByHash(token.hash)).toEqual(token);
        expect(await store.orgs.getToken(token.id)).toEqual(token);
        expect(await store.orgs.findTokenByHash('0'.repeat(64))).toBeNull();
        expect(await store.orgs.getToken('missing')).toBeNull();
      });

      it('refuses a second token with the same hash', async () => {
        const token = aToken('org-1');
        await store.orgs.createToken(token);
        await expect(store.orgs.createToken(aToken('org-2', { hash: token.hash }))).rejects.toThrow(ConflictError);
      });

      it("lists an organization's tokens, oldest first, and no one else's", async () => {
        const later = aToken('org-1', { name: 'later', createdAt: at(5) });
        const earlier = aToken('org-1', { name: 'earlier', createdAt: at(1) });
        await store.orgs.createToken(later);
        await store.orgs.createToken(earlier);
        await store.orgs.createToken(aToken('org-2'));
        expect(await store.orgs.listTokens('org-1')).toEqual([earlier, later]);
        expect(await store.orgs.listTokens('org-3')).toEqual([]);
      });

      it('revokes once: revoking again keeps the first time', async () => {
        const token = aToken('org-1');
        await store.orgs.createToken(token);
        expect(await store.orgs.revokeToken(token.id, at(1))).toBe(true);
        expect(await store.orgs.revokeToken(token.id, at(2))).toBe(true);
        expect((await store.orgs.findTokenByHash(token.hash))?.revokedAt).toBe(at(1));
        expect(await store.orgs.revokeToken('missing', at(3))).toBe(false);
      });

      it('records when a token was last used', async () => {
        const token = aToken('org-1');
        await store.orgs.createToken(token);
        await store.orgs.touchToken(token.id, at(1));
        await store.orgs.touchToken(token.id, at(7));
        expect(await store.orgs.getToken(token.id)).toEqual({ ...token, lastUsedAt: at(7) });
      });
    });

    describe('queues', () => {
      it('finds a queue by repository and branch, and by id', async () => {
        const queue = aQueue({ entries: [] });
        queue.entries = [anEntry(queue.id)];
        await store.queues.insertQueue(queue);
        expect(await store.queues.getQueue(queue.repoKey, 'main')).toEqual(queue);
        expect(await store.queues.getQueueById(queue.id)).toEqual(queue);
        expect(await store.queues.getQueue(queue.repoKey, 'develop')).toBeNull();
        expect(await store.queues.getQueueById('missing')).toBeNull();
      });

      it('refuses a second queue for the same repository and branch', async () => {
        const queue = aQueue();
        await store.queues.insertQueue(queue);
        await expect(store.queues.insertQueue(aQueue())).rejects.toThrow(ConflictError);
        await store.queues.insertQueue(aQueue({ branch: 'develop' }));
        expect((await store.queues.getQueue(queue.repoKey, 'main'))?.id).toBe(queue.id);
      });

      it('lists queues by organization, by repository, or both', async () => {
        const widgets = { host: 'github.com', owner: 'acme', name: 'widgets' };
        const gadgets = { host: 'github.com', owner: 'acme', name: 'gadgets' };
        const a = aQueue({ orgId: 'org-1', repo: widgets, branch: 'main' });
        const b = aQueue({ orgId: 'org-1', repo: widgets, branch: 'develop' });
        const c = aQueue({ orgId: 'org-1', repo: gadgets, branch: 'main' });
        const d = aQueue({ orgId: 'org-2', repo: { ...widgets, owner: 'other' }, branch: 'main' });
        for (const q of [a, b, c, d]) await store.queues.insertQueue(q);

        const ids = async (filter: { orgId?: string; repoKey?: string }) =>
          (await store.queues.listQueues(filter)).map((q) => q.id).sort();
        expect(await ids({ orgId: 'org-1' })).toEqual([a.id, b.id, c.id].sort());
        expect(await ids({ repoKey: a.repoKey })).toEqual([a.id, b.id].sort());
        expect(await ids({ orgId: 'org-2', repoKey: a.repoKey })).toEqual([]);
        expect(await ids({ orgId: 'org-1', repoKey: c.repoKey })).toEqual([c.id]);
        expect(await ids({})).toEqual([a.id, b.id, c.id, d.id].sort());
      });

      it('commits a new version when the stored version is the expected one', async () => {
        const queue = aQueue({ version: 1 });
        await store.queues.insertQueue(queue);
        const next = { ...queue, version: 2, state: 'paused' as const, entries: [anEntry(queue.id)] };
        expect(await store.queues.commitQueue(next, 1)).toBe(true);
        expect(await store.queues.getQueue(queue.repoKey, 'main')).toEqual(next);
      });

      it('refuses a commit based on a stale version and keeps the stored queue', async () => {
        const queue = aQueue({ version: 1 });
        await store.queues.insertQueue(queue);
        const winner = { ...queue, version: 2, state: 'paused' as const };
        expect(await store.queues.commitQueue(winner, 1)).toBe(true);
        const loser = { ...queue, version: 2, state: 'draining' as const };
        expect(await store.queues.commitQueue(loser, 1)).toBe(false);
        expect(await store.queues.getQueueById(queue.id)).toEqual(winner);
      });

      it('refuses a commit whose version is not the expected one plus one', async () => {
        const queue = aQueue({ version: 1 });
        await store.queues.insertQueue(queue);
        await expect(store.queues.commitQueue({ ...queue, version: 5 }, 1)).rejects.toThrow();
        expect(await store.queues.getQueueById(queue.id)).toEqual(queue);
      });

      it('refuses a commit to a queue that was deleted', async () => {
        const queue = aQueue({ version: 1 });
        await store.queues.insertQueue(queue);
        expect(await store.queues.deleteQueue(queue.id, 1)).toBe(true);
        expect(await store.queues.commitQueue({ ...queue, version: 2 }, 1)).toBe(false);
        expect(await store.queues.getQueueById(queue.id)).toBeNull();
      });

      it("writes the commit's archive, and writing the same archive again is harmless", async () => {
        const queue = aQueue({ version: 1 });
        await store.queues.insertQueue(queue);
        const ended = anEndedEntry(queue.id, { prNumber: 7, seq: 3, stateChangedAt: at(10) });
        const run = aRun(queue.id, [7], { finishedAt: at(10) });
        const archive = { entries: [ended], runs: [run] };

        expect(await store.queues.commitQueue({ ...queue, version: 2 }, 1, archive)).toBe(true);
        // A reconcile that lost the race repeats the same archive with the stale version.
        expect(await store.queues.commitQueue({ ...queue, version: 2 }, 1, archive)).toBe(false);
        expect(await store.queues.commitQueue({ ...queue, version: 3 }, 2, archive)).toBe(true);

        expect(await store.queues.latestArchivedEntry(queue.id, 7)).toEqual(ended);
        expect(await store.queues.archivedEntriesEndedSince([queue.id], at(0))).toEqual([ended]);
        expect(await store.queues.archivedRuns(queue.id, {})).toEqual([run]);
        expect(await store.queues.archivedRuns(queue.id, { prNumber: 7 })).toEqual([run]);
      });

      it('replaces an archived entry or run written again with new content', async () => {
        const queue = aQueue({ version: 1 });
        await store.queues.insertQueue(queue);
        const entry = anEndedEntry(queue.id, { prNumber: 7, state: 'CANCELLED', stateChangedAt: at(1) });
        const run = aRun(queue.id, [7, 8], { status: 'cancelled', finishedAt: at(1) });
        await store.queues.commitQueue({ ...queue, version: 2 }, 1, { entries: [entry], runs: [run] });
        const entryAgain = { ...entry, state: 'MERGED' as const, stateChangedAt: at(2) };
        const runAgain = { ...run, status: 'passed' as const, prs: run.prs.slice(0, 1), finishedAt: at(2) };
        await store.queues.commitQueue({ ...queue, version: 3 }, 2, { entries: [entryAgain], runs: [runAgain] });

        expect(await store.queues.latestArchivedEntry(queue.id, 7)).toEqual(entryAgain);
        expect(await store.queues.archivedEntriesEndedSince([queue.id], at(0))).toEqual([entryAgain]);
        expect(await store.queues.archivedRuns(queue.id, {})).toEqual([runAgain]);
        expect(await store.queues.archivedRuns(queue.id, { prNumber: 8 })).toEqual([]);
      });

      it('deletes a queue only at the expected version', async () => {
        const queue = aQueue({ version: 3 });
        await store.queues.insertQueue(queue);
        expect(await store.queues.deleteQueue(queue.id, 2)).toBe(false);
        expect(await store.queues.getQueueById(queue.id)).toEqual(queue);
        expect(await store.queues.deleteQueue(queue.id, 3)).toBe(true);
        expect(await store.queues.getQueue(queue.repoKey, 'main')).toBeNull();
        expect(await store.queues.deleteQueue(queue.id, 3)).toBe(false);
        // The branch is free again.
        await store.queues.insertQueue(aQueue());
      });
    });

    describe('archive queries', () => {
      async function archive(queueId: string, entries: ReturnType<typeof anEntry>[], runs: ReturnType<typeof aRun>[] = []) {
        const queue = (await store.queues.getQueueById(queueId)) ?? aQueue({ id: queueId, branch: `b-${queueId}`, version: 0 });
        if (queue.version === 0) await store.queues.insertQueue(queue);
        expect(await store.queues.commitQueue({ ...queue, version: queue.version + 1 }, queue.version, { entries, runs })).toBe(true);
      }

      it('finds the latest archived entry of a PR by highest seq, whatever the order written', async () => {
        const q = 'queue-a';
        const second = anEndedEntry(q, { prNumber: 5, seq: 9, state: 'FAILED', stateChangedAt: at(1) });
        const first = anEndedEntry(q, { prNumber: 5, seq: 2, state: 'CANCELLED', stateChangedAt: at(5) });
        await archive(q, [second]);
        await archive(q, [first, anEndedEntry(q, { prNumber: 6, seq: 20 })]);
        await archive('queue-b', [anEndedEntry('queue-b', { prNumber: 5, seq: 50 })]);

        expect(await store.queues.latestArchivedEntry(q, 5)).toEqual(second);
        expect(await store.queues.latestArchivedEntry(q, 4)).toBeNull();
        expect(await store.queues.latestArchivedEntry('queue-c', 5)).toBeNull();
      });

      it('lists entries ended since a time, in the given queues only', async () => {
        const before = anEndedEntry('queue-a', { prNumber: 1, stateChangedAt: at(9) });
        const onTheDot = anEndedEntry('queue-a', { prNumber: 2, stateChangedAt: at(10) });
        const after = anEndedEntry('queue-b', { prNumber: 3, stateChangedAt: at(11) });
        const elsewhere = anEndedEntry('queue-c', { prNumber: 4, stateChangedAt: at(12) });
        await archive('queue-a', [before, onTheDot]);
        await archive('queue-b', [after]);
        await archive('queue-c', [elsewhere]);

        const ids = (entries: { id: string }[]) => entries.map((e) => e.id).sort();
        expect(ids(await store.queues.archivedEntriesEndedSince(['queue-a', 'queue-b'], at(10)))).toEqual(
          ids([onTheDot, after]),
        );
        expect(ids(await store.queues.archivedEntriesEndedSince(['queue-c'], at(0)))).toEqual([elsewhere.id]);
        expect(await store.queues.archivedEntriesEndedSince([], at(0))).toEqual([]);
        expect(await store.queues.archivedEntriesEndedSince(['queue-a'], at(60))).toEqual([]);
      });

      it('finds archived runs by run id, by any PR they tested, and by finish time, newest first', async () => {
        const q = 'queue-a';
        const old = aRun(q, [1, 2], { finishedAt: at(10) });
        const mid = aRun(q, [2, 3], { finishedAt: at(20), kind: 'bisection', status: 'failed' });
        const recent = aRun(q, [3], { finishedAt: at(30), status: 'cancelled' });
        await archive(q, [], [mid, old]);
        await archive(q, [], [recent]);
        await archive('queue-b', [], [aRun('queue-b', [2], { finishedAt: at(40) })]);

        const ids = (runs: { id: string }[]) => runs.map((r) => r.id);
        expect(await store.queues.archivedRuns(q, {})).toEqual([recent, mid, old]);
        expect(await store.queues.archivedRuns(q, { runId: mid.id })).toEqual([mid]);
        expect(ids(await store.queues.archivedRuns(q, { prNumber: 2 }))).toEqual([mid.id, old.id]);
        expect(ids(await store.queues.archivedRuns(q, { prNumber: 3 }))).toEqual([recent.id, mid.id]);
        expect(ids(await store.queues.archivedRuns(q, { finishedSince: at(20) }))).toEqual([recent.id, mid.id]);
        expect(ids(await store.queues.archivedRuns(q, { prNumber: 1, finishedSince: at(11) }))).toEqual([]);
        expect(ids(await store.queues.archivedRuns(q, { prNumber: 2, runId: old.id }))).toEqual([old.id]);
        expect(ids(await store.queues.archivedRuns(q, { runId: 'missing' }))).toEqual([]);
        expect(ids(await store.queues.archivedRuns('queue-b', { prNumber: 3 }))).toEqual([]);
      });
      it('prunes entries that ended and runs that finished before a time, in every queue, and nothing newer', async () => {
        const old = anEndedEntry('queue-a', { prNumber: 1, seq: 1, stateChangedAt: at(5) });
        const recent = anEndedEntry('queue-a', { prNumber: 1, seq: 2, stateChangedAt: at(15) });
        const otherQueue = anEndedEntry('queue-b', { prNumber: 2, stateChangedAt: at(1) });
        const oldRun = aRun('queue-a', [1], { finishedAt: at(5) });
        const recentRun = aRun('queue-a', [1], { finishedAt: at(15) });
        await archive('queue-a', [old, recent], [oldRun, recentRun]);
        await archive('queue-b', [otherQueue]);

        expect(await store.queues.pruneHistory(at(10))).toEqual({ entries: 2, runs: 1 });
        expect(await store.queues.latestArchivedEntry('queue-a', 1)).toEqual(recent);
        expect(await store.queues.latestArchivedEntry('queue-b', 2)).toBeNull();
        expect(await store.queues.archivedRuns('queue-a', {})).toEqual([recentRun]);
        expect(await store.queues.archivedRuns('queue-a', { prNumber: 1 })).toEqual([recentRun]);
        expect(await store.queues.pruneHistory(at(10))).toEqual({ entries: 0, runs: 0 });
      });
    });

    describe('retention of impacted targets', () => {
      const repo = 'github.com/acme/widgets';
      const list = (n: number, prefix: string) => ({ all: false as const, targets: Array.from({ length: n }, (_, i) => `${prefix}${i}`) });

      it('prunes the lists not put or marked used since a time; a used list stays', async () => {
        await store.targets.putImpactedTargets(repo, 1, 'sha-queued', list(3, 'a'), { at: at(0) });
        await store.targets.putImpactedTargets(repo, 2, 'sha-gone', list(3, 'b'), { at: at(0) });
        await store.targets.putImpactedTargets(repo, 3, 'sha-new', { all: true }, { at: at(20) });
        await store.targets.touchImpactedTargets(repo, [{ prNumber: 1, sha: 'sha-queued' }, { prNumber: 9, sha: 'never-put' }], at(15));
        // A touch never moves a list's use back in time.
        await store.targets.touchImpactedTargets(repo, [{ prNumber: 3, sha: 'sha-new' }], at(1));

        expect(await store.targets.pruneImpactedTargets(at(10))).toBe(1);
        expect(await store.targets.getImpactedTargets(repo, 2, 'sha-gone')).toBeNull();
        expect(await store.targets.getImpactedTargets(repo, 1, 'sha-queued')).toEqual(list(3, 'a'));
        expect(await store.targets.getImpactedTargets(repo, 3, 'sha-new')).toEqual({ all: true });
        expect(await store.targets.pruneImpactedTargets(at(16))).toBe(1);
        expect(await store.targets.getImpactedTargets(repo, 1, 'sha-queued')).toBeNull();
        expect(await store.targets.getImpactedTargets(repo, 3, 'sha-new')).toEqual({ all: true });
      });

      it("caps the bytes a repository holds: its least recently used lists go first, never the one just put, never another repository's", async () => {
        const other = 'github.com/acme/other';
        await store.targets.putImpactedTargets(other, 1, 'sha-x', list(100, 'x'), { at: at(0) });
        await store.targets.putImpactedTargets(repo, 1, 'sha-1', list(100, 'a'), { at: at(1) }); // ~290 bytes each
        await store.targets.putImpactedTargets(repo, 2, 'sha-2', list(100, 'b'), { at: at(2) });
        await store.targets.touchImpactedTargets(repo, [{ prNumber: 1, sha: 'sha-1' }], at(3));
        await store.targets.putImpactedTargets(repo, 3, 'sha-3', list(100, 'c'), { at: at(4), maxBytesPerRepo: 700 });

        expect(await store.targets.getImpactedTargets(repo, 2, 'sha-2')).toBeNull();
        expect(await store.targets.getImpactedTargets(repo, 1, 'sha-1')).toEqual(list(100, 'a'));
        expect(await store.targets.getImpactedTargets(repo, 3, 'sha-3')).toEqual(list(100, 'c'));
        expect(await store.targets.getImpactedTargets(other, 1, 'sha-x')).toEqual(list(100, 'x'));

        // A single list over the cap is kept: it is the one just put.
        await store.targets.putImpactedTargets(repo, 4, 'sha-4', list(1000, 'd'), { at: at(5), maxBytesPerRepo: 700 });
        expect(await store.targets.getImpactedTargets(repo, 4, 'sha-4')).toEqual(list(1000, 'd'));
        expect(await store.targets.getImpactedTargets(repo, 1, 'sha-1')).toBeNull();
        expect(await store.targets.getImpactedTargets(repo, 3, 'sha-3')).toBeNull();
      });
    });

    describe('impacted targets', () => {
      const repo = 'github.com/acme/widgets';

      it('stores ALL and an empty list, and answers null for a head it has nothing for', async () => {
        await store.targets.putImpactedTargets(repo, 1, 'sha-a', { all: true });
        await store.targets.putImpactedTargets(repo, 2, 'sha-b', { all: false, targets: [] });
        expect(await store.targets.getImpactedTargets(repo, 1, 'sha-a')).toEqual({ all: true });
        expect(await store.targets.getImpactedTargets(repo, 2, 'sha-b')).toEqual({ all: false, targets: [] });
        expect(await store.targets.getImpactedTargets(repo, 1, 'sha-other')).toBeNull();
        expect(await store.targets.getImpactedTargets('github.com/acme/other', 1, 'sha-a')).toBeNull();
      });

      it('round-trips names exactly, including unusual characters', async () => {
        const targets = ['//app:lib', 'ünïcödé/目标', 'with space', 'line\nbreak', '', 'tab\there', '"quoted"'];
        await store.targets.putImpactedTargets(repo, 3, 'sha-c', { all: false, targets });
        expect(await store.targets.getImpactedTargets(repo, 3, 'sha-c')).toEqual({ all: false, targets });
      });

      it('round-trips a 300,000-name list in order', async () => {
        const targets = Array.from({ length: 300_000 }, (_, i) => `//services/component-${i % 977}/module:target_${i}_with_a_longer_name`);
        await store.targets.putImpactedTargets(repo, 4, 'sha-big', { all: false, targets });
        const read = await store.targets.getImpactedTargets(repo, 4, 'sha-big');
        expect(read?.all).toBe(false);
        expect(read && !read.all && read.targets.length).toBe(300_000);
        expect(read).toEqual({ all: false, targets });
      });

      it('replaces the list of a head when it is set again', async () => {
        const big = Array.from({ length: 120_000 }, (_, i) => `t${i}`);
        await store.targets.putImpactedTargets(repo, 5, 'sha-d', { all: false, targets: big });
        await store.targets.putImpactedTargets(repo, 5, 'sha-d', { all: false, targets: ['only'] });
        expect(await store.targets.getImpactedTargets(repo, 5, 'sha-d')).toEqual({ all: false, targets: ['only'] });
        await store.targets.putImpactedTargets(repo, 5, 'sha-d', { all: true });
        expect(await store.targets.getImpactedTargets(repo, 5, 'sha-d')).toEqual({ all: true });
        await store.targets.putImpactedTargets(repo, 5, 'sha-d', { all: false, targets: big });
        expect(await store.targets.getImpactedTargets(repo, 5, 'sha-d')).toEqual({ all: false, targets: big });
      });

      it('keeps the lists of different heads and PRs apart', async () => {
        await store.targets.putImpactedTargets(repo, 6, 'sha-old', { all: false, targets: ['a'] });
        await store.targets.putImpactedTargets(repo, 6, 'sha-new', { all: false, targets: ['b', 'c'] });
        await store.targets.putImpactedTargets(repo, 7, 'sha-old', { all: true });
        expect(await store.targets.getImpactedTargets(repo, 6, 'sha-old')).toEqual({ all: false, targets: ['a'] });
        expect(await store.targets.getImpactedTargets(repo, 6, 'sha-new')).toEqual({ all: false, targets: ['b', 'c'] });
        expect(await store.targets.getImpactedTargets(repo, 7, 'sha-old')).toEqual({ all: true });
      });
    });

    describe('secrets', () => {
      it('creates a secret once and answers the same value afterwards', async () => {
        let calls = 0;
        const create = () => `value-${++calls}`;
        expect(await store.server.getOrCreateSecret('page-token-key', create)).toBe('value-1');
        expect(await store.server.getOrCreateSecret('page-token-key', create)).toBe('value-1');
        expect(calls).toBe(1);
        expect(await store.server.getOrCreateSecret('other-key', () => 'other')).toBe('other');
      });

      it('gives concurrent first callers the same value', async () => {
        const values = await Promise.all(
          Array.from({ length: 8 }, (_, i) => store.server.getOrCreateSecret('shared', () => `candidate-${i}`)),
        );
        expect(new Set(values).size).toBe(1);
        expect(values[0]).toMatch(/^candidate-\d$/);
      });
    });

    leaseContract(() => store.leases);

    describe('webhook deliveries', () => {
      it('claims a delivery id once', async () => {
        expect(await store.server.claimWebhookDelivery('delivery-1', at(1), at(0))).toBe(true);
        expect(await store.server.claimWebhookDelivery('delivery-1', at(2), at(0))).toBe(false);
        expect(await store.server.claimWebhookDelivery('delivery-2', at(3), at(0))).toBe(true);
      });

      it('forgets ids seen before keepSince, so they can be claimed again', async () => {
        expect(await store.server.claimWebhookDelivery('old', at(1), at(0))).toBe(true);
        expect(await store.server.claimWebhookDelivery('recent', at(10), at(0))).toBe(true);
        expect(await store.server.claimWebhookDelivery('other', at(20), at(5))).toBe(true);
        expect(await store.server.claimWebhookDelivery('old', at(21), at(5))).toBe(true);
        expect(await store.server.claimWebhookDelivery('recent', at(22), at(5))).toBe(false);
      });

      it('claims a released id again (its handling failed)', async () => {
        expect(await store.server.claimWebhookDelivery('failed', at(1), at(0))).toBe(true);
        await store.server.releaseWebhookDelivery('failed');
        expect(await store.server.claimWebhookDelivery('failed', at(2), at(0))).toBe(true);
        expect(await store.server.claimWebhookDelivery('failed', at(3), at(0))).toBe(false);
        await store.server.releaseWebhookDelivery('never-claimed');
      });

      it('gives exactly one of concurrent claims of an id', async () => {
        const claims = await Promise.all(
          Array.from({ length: 5 }, (_, i) => store.server.claimWebhookDelivery('shared', at(i), at(0))),
        );
        expect(claims.filter((c) => c)).toHaveLength(1);
      });
    });

    describe('test cases', () => {
      const repo = 'github.com/acme/widgets';

      it('stores a test case and replaces it on upsert', async () => {
        const tc = aTestCase(repo, { status: 'healthy', quarantinedAt: null });
        await store.tests.upsertTestCase(tc);
        expect(await store.tests.getTestCase(repo, tc.testCaseId)).toEqual(tc);
        const flaky = { ...tc, status: 'flaky' as const, quarantinedAt: at(3), codeowners: ['@acme/core'] };
        await store.tests.upsertTestCase(flaky);
        expect(await store.tests.getTestCase(repo, tc.testCaseId)).toEqual(flaky);
        expect(await store.tests.getTestCase('github.com/acme/other', tc.testCaseId)).toBeNull();
      });

      it('lists quarantined tests, most recently quarantined first, ties by test case id, with the total', async () => {
        const a = aTestCase(repo, { testCaseId: 'a', quarantinedAt: at(5) });
        const b = aTestCase(repo, { testCaseId: 'b', quarantinedAt: at(9) });
        const c = aTestCase(repo, { testCaseId: 'c', quarantinedAt: at(5) });
        const d = aTestCase(repo, { testCaseId: 'd', quarantinedAt: at(1) });
        const healthy = aTestCase(repo, { testCaseId: 'e', status: 'healthy', quarantinedAt: null });
        const elsewhere = aTestCase('github.com/acme/other', { testCaseId: 'f', quarantinedAt: at(20) });
        for (const tc of [d, healthy, c, elsewhere, a, b]) await store.tests.upsertTestCase(tc);

        expect(await store.tests.listQuarantinedTests(repo, { offset: 0, limit: 10 })).toEqual({ rows: [b, a, c, d], total: 4 });
        expect(await store.tests.listQuarantinedTests(repo, { offset: 1, limit: 2 })).toEqual({ rows: [a, c], total: 4 });
        expect(await store.tests.listQuarantinedTests(repo, { offset: 4, limit: 2 })).toEqual({ rows: [], total: 4 });
        expect(await store.tests.listQuarantinedTests('github.com/none/none', { offset: 0, limit: 5 })).toEqual({
          rows: [],
          total: 0,
        });
      });

      it('lists flaky, broken and quarantined tests, most recent status change first, with the total', async () => {
        const flaky = aTestCase(repo, { testCaseId: 'a', status: 'flaky', quarantinedAt: null, statusLastUpdatedAt: at(5) });
        const broken = aTestCase(repo, { testCaseId: 'b', status: 'broken', quarantinedAt: at(2), statusLastUpdatedAt: at(9) });
        const pinned = aTestCase(repo, { testCaseId: 'c', status: 'healthy', quarantinedAt: at(3), statusLastUpdatedAt: at(1) });
        const healthy = aTestCase(repo, { testCaseId: 'd', status: 'healthy', quarantinedAt: null, statusLastUpdatedAt: at(20) });
        const elsewhere = aTestCase('github.com/acme/other', { testCaseId: 'e', status: 'flaky', statusLastUpdatedAt: at(30) });
        for (const tc of [healthy, pinned, elsewhere, flaky, broken]) await store.tests.upsertTestCase(tc);

        expect(await store.tests.listFlakyTests(repo, { offset: 0, limit: 10 })).toEqual({ rows: [broken, flaky, pinned], total: 3 });
        expect(await store.tests.listFlakyTests(repo, { offset: 1, limit: 1 })).toEqual({ rows: [flaky], total: 3 });
        expect(await store.tests.listFlakyTests('github.com/none/none', { offset: 0, limit: 5 })).toEqual({ rows: [], total: 0 });
      });

      it('drops a test from the list when it leaves quarantine', async () => {
        const tc = aTestCase(repo, { quarantinedAt: at(1) });
        await store.tests.upsertTestCase(tc);
        await store.tests.upsertTestCase({ ...tc, quarantinedAt: null, status: 'healthy' });
        expect(await store.tests.listQuarantinedTests(repo, { offset: 0, limit: 10 })).toEqual({ rows: [], total: 0 });
      });
    });

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

    queueRowsContract(() => store, openPeer);
    outboxContract(() => store);
    inboxContract(() => store);
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
