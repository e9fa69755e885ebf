import { API_SETTINGS_SOURCE, isManagedByFile, type QueueTemplate } from '../../domain/queue-template.js';
import { ConflictError } from '../../store/errors.js';
import { LOST, retryOnConflict } from '../../store/store.js';
import type { QueueTemplateStore } from '../../store/template-store.js';

/**
 * The settings file's writes of templates, each a compare-and-set on the manager and settings read
 * (retried over a concurrent change), so an API update that read the template before the file took
 * it over cannot write after it.
 */

/** Gives the template the file's settings (keeping its creation time), creating it when there is none. */
export function putFileTemplate(templates: QueueTemplateStore, template: QueueTemplate): Promise<void> {
  return retryOnConflict(`queue template ${template.pattern}`, async () => {
    const current = await templates.getTemplate(template.repoKey, template.pattern);
    if (!current) {
      try {
        return await templates.insertTemplate(template);
      } catch (err) {
        if (err instanceof ConflictError) return LOST;
        throw err;
      }
    }
    const expected = { settings: current.settings, settingsSource: current.settingsSource };
    return (await templates.updateTemplate(current.repoKey, current.pattern, expected, { ...template, createdAt: current.createdAt })) ? undefined : LOST;
  });
}

/** Managed through the API again; false when it was not managed by a file (any more). */
export function releaseFileTemplate(templates: QueueTemplateStore, repoKey: string, pattern: string, at: string): Promise<boolean> {
  return retryOnConflict(`queue template ${pattern}`, async () => {
    const current = await templates.getTemplate(repoKey, pattern);
    if (!current || !isManagedByFile(current.settingsSource)) return false;
    const changes = { settingsSource: API_SETTINGS_SOURCE, updatedAt: at };
    return (await templates.updateTemplate(repoKey, pattern, { settingsSource: current.settingsSource }, changes)) ? true : LOST;
  });
}
