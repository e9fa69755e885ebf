import type { QueueTemplate } from '../../src/domain/queue-template.js';
import { ConflictError } from '../../src/store/errors.js';
import type { Store } from '../../src/store/store.js';
import { at } from './fixtures.js';

/** Queue templates: one per (repository, pattern), listed by repository then pattern, copied in and out. */
export function templateContract(store: () => Store): void {
  describe('queue templates', () => {
    const aTemplate = (repoKey: string, pattern: string, overrides: Partial<QueueTemplate> = {}): QueueTemplate => {
      const [host = '', owner = '', name = ''] = repoKey.split('/');
      return { orgId: 'org-1', repo: { host, owner, name }, repoKey, pattern, settings: { concurrency: 3 }, settingsSource: 'api', createdAt: at(0), updatedAt: at(0), ...overrides };
    };

    it('stores one template per repository and pattern: a second insert conflicts, a put replaces', async () => {
      const t = store().templates;
      await t.insertTemplate(aTemplate('github.com/acme/app', 'release/*'));
      await expect(t.insertTemplate(aTemplate('github.com/acme/app', 'release/*'))).rejects.toBeInstanceOf(ConflictError);
      await t.insertTemplate(aTemplate('github.com/acme/other', 'release/*'));
      await t.putTemplate(aTemplate('github.com/acme/app', 'release/*', { settings: { batch: true }, settingsSource: '.github/mergeq.yml@abc' }));
      expect(await t.getTemplate('github.com/acme/app', 'release/*')).toEqual(
        aTemplate('github.com/acme/app', 'release/*', { settings: { batch: true }, settingsSource: '.github/mergeq.yml@abc' }),
      );
      expect(await t.getTemplate('github.com/acme/app', 'hotfix/*')).toBeNull();
    });

    it('lists by repository then pattern, of one organization or one repository, and deletes', async () => {
      const t = store().templates;
      await t.putTemplate(aTemplate('github.com/acme/b', 'x/*'));
      await t.putTemplate(aTemplate('github.com/acme/a', 'y/**'));
      await t.putTemplate(aTemplate('github.com/acme/a', 'release/*'));
      await t.putTemplate(aTemplate('github.com/other/c', 'z', { orgId: 'org-2' }));
      const names = (list: QueueTemplate[]) => list.map((x) => `${x.repoKey} ${x.pattern}`);
      expect(names(await t.listTemplates({ orgId: 'org-1' }))).toEqual(['github.com/acme/a release/*', 'github.com/acme/a y/**', 'github.com/acme/b x/*']);
      expect(names(await t.listTemplates({ repoKey: 'github.com/acme/a' }))).toEqual(['github.com/acme/a release/*', 'github.com/acme/a y/**']);
      expect(await t.deleteTemplate('github.com/acme/a', 'y/**')).toBe(true);
      expect(await t.deleteTemplate('github.com/acme/a', 'y/**')).toBe(false);
      expect(names(await t.listTemplates({}))).toEqual(['github.com/acme/a release/*', 'github.com/acme/b x/*', 'github.com/other/c z']);
    });

    it('hands out copies: changing what was put or read changes nothing stored', async () => {
      const t = store().templates;
      const template = aTemplate('github.com/acme/a', 'release/*');
      await t.putTemplate(template);
      template.settings.concurrency = 9;
      const read = (await t.getTemplate('github.com/acme/a', 'release/*'))!;
      read.settings.concurrency = 7;
      expect((await t.getTemplate('github.com/acme/a', 'release/*'))!.settings).toEqual({ concurrency: 3 });
    });
  });
}
