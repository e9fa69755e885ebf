import type { Clock } from '../../domain/clock.js';
import type { Org } from '../../domain/org.js';
import { API_SETTINGS_SOURCE, isManagedByFile, REPO_CONFIG_PATH, type QueueTemplate } from '../../domain/queue-template.js';
import { repoKey, type RepoRef } from '../../domain/repo.js';
import { ConflictError } from '../../store/errors.js';
import { LOST, retryOnConflict } from '../../store/store.js';
import type { QueueTemplateStore } from '../../store/template-store.js';
import { ServiceError } from '../errors.js';
import { orBusy } from '../busy.js';
import type { QueueSettingsPatch } from './queue-inputs.js';
import { settingsPatchOf } from './queue-service.js';
import { assertSettingsInBounds } from './settings-bounds.js';
import { assertOwnsRepo } from '../access/tenancy.js';

export interface TemplateRefInput {
  repo: RepoRef;
  pattern: string;
}

export type QueueTemplateInput = TemplateRefInput & QueueSettingsPatch;

/** A template as the API answers it: the settings given (the others take their defaults). */
export interface QueueTemplateRecord {
  repo: RepoRef;
  pattern: string;
  settings: QueueSettingsPatch;
  settingsSource: string;
  createdAt: string;
  updatedAt: string;
}

const templateErrors = {
  exists: (pattern: string) => new ServiceError(409, 'template_exists', 'Queue template exists', `a queue template for ${pattern} already exists in this repository`),
  notFound: (pattern: string) =>
    new ServiceError(404, 'template_not_found', 'Queue template not found', `no queue template for ${pattern} in this repository; create one with createQueueTemplate`),
  managedByFile: (pattern: string, source: string) =>
    new ServiceError(
      409,
      'template_managed_by_file',
      'Queue template is managed by the repository',
      `the queue template for ${pattern} is kept in ${REPO_CONFIG_PATH} (applied from commit ${source.slice(REPO_CONFIG_PATH.length + 1)}); change it there`,
    ),
};

/** Queue templates for branch patterns through the API and CLI (queue-patterns.md). */
export class QueueTemplateService {
  constructor(
    private readonly store: { templates: QueueTemplateStore },
    private readonly clock: Clock,
  ) {}

  async create(org: Org, input: QueueTemplateInput): Promise<QueueTemplateRecord> {
    assertOwnsRepo(org, input.repo);
    const settings = settingsPatchOf(input);
    assertSettingsInBounds(settings);
    const now = this.clock.now().toISOString();
    const template: QueueTemplate = {
      orgId: org.id,
      repo: { host: input.repo.host, owner: input.repo.owner, name: input.repo.name },
      repoKey: repoKey(input.repo),
      pattern: input.pattern,
      settings,
      settingsSource: API_SETTINGS_SOURCE,
      createdAt: now,
      updatedAt: now,
    };
    try {
      await this.store.templates.insertTemplate(template);
    } catch (err) {
      if (err instanceof ConflictError) throw templateErrors.exists(input.pattern);
      throw err;
    }
    return toTemplateRecord(template);
  }

  async list(org: Org, input: { repo?: RepoRef }): Promise<{ templates: QueueTemplateRecord[] }> {
    if (input.repo) assertOwnsRepo(org, input.repo);
    const templates = await this.store.templates.listTemplates(input.repo ? { repoKey: repoKey(input.repo) } : { orgId: org.id });
    return { templates: templates.map(toTemplateRecord) };
  }

  /** Omitted settings stay unchanged. Queues already created from it keep their own settings. */
  async update(org: Org, input: QueueTemplateInput): Promise<QueueTemplateRecord> {
    const settings = settingsPatchOf(input);
    assertSettingsInBounds(settings);
    // Under the condition that its settings and manager are as read: a concurrent change (another
    // replica's, or the settings file taking it over) is read again, and this one applied over it.
    const next = await orBusy(retryOnConflict(`queue template ${input.pattern}`, async () => {
      const current = await this.load(org, input);
      const changes = { settings: { ...current.settings, ...settings }, updatedAt: this.clock.now().toISOString() };
      const expected = { settings: current.settings, settingsSource: current.settingsSource };
      return (await this.store.templates.updateTemplate(current.repoKey, current.pattern, expected, changes)) ? { ...current, ...changes } : LOST;
    }));
    return toTemplateRecord(next);
  }

  /** Queues created from it stay. Deleting a missing template answers `deleted: false`. */
  async delete(org: Org, input: TemplateRefInput): Promise<{ deleted: boolean }> {
    assertOwnsRepo(org, input.repo);
    // Only while it is still managed through the API: a settings file that took it over meanwhile keeps it.
    return orBusy(retryOnConflict(`queue template ${input.pattern}`, async () => {
      const current = await this.store.templates.getTemplate(repoKey(input.repo), input.pattern);
      if (!current) return { deleted: false };
      assertNotManaged(current);
      return (await this.store.templates.deleteTemplate(current.repoKey, current.pattern, { settingsSource: current.settingsSource })) ? { deleted: true } : LOST;
    }));
  }

  private async load(org: Org, input: TemplateRefInput): Promise<QueueTemplate> {
    assertOwnsRepo(org, input.repo);
    const current = await this.store.templates.getTemplate(repoKey(input.repo), input.pattern);
    if (!current) throw templateErrors.notFound(input.pattern);
    assertNotManaged(current);
    return current;
  }
}

function assertNotManaged(template: QueueTemplate): void {
  if (isManagedByFile(template.settingsSource)) throw templateErrors.managedByFile(template.pattern, template.settingsSource);
}

export function toTemplateRecord(t: QueueTemplate): QueueTemplateRecord {
  return { repo: { ...t.repo }, pattern: t.pattern, settings: { ...t.settings }, settingsSource: t.settingsSource, createdAt: t.createdAt, updatedAt: t.updatedAt };
}
