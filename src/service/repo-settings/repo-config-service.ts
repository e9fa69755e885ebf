import type { Clock } from '../../domain/clock.js';
import type { Org } from '../../domain/org.js';
import { isManagedByFile } from '../../domain/queue-template.js';
import { repoKey, type RepoRef } from '../../domain/repo.js';
import { defaultSettings, type QueueSettings } from '../../domain/settings.js';
import { queueEvents } from '../../events/queue-events.js';
import { changeSettings } from '../../planner/index.js';
import { ConflictError } from '../../store/errors.js';
import type { QueueStore } from '../../store/store.js';
import type { QueueTemplateStore } from '../../store/template-store.js';
import { newQueueDoc, type QueueDoc } from '../../domain/queue.js';
import type { QueueSettingsPatch } from '../queue/queue-inputs.js';
import { QueueDocWriter } from '../queue/queue-doc-writer.js';
import type { RepoConfig } from './repo-config.js';
import { putFileTemplate, releaseFileTemplate } from './file-templates.js';
import { assertSettingsInBounds } from '../queue/settings-bounds.js';

/** What applying the file changed, for the commit status that reports it. */
export interface AppliedRepoConfig {
  queuesCreated: number;
  queuesUpdated: number;
  templates: number;
  /** Queues and templates the file managed and no longer names: managed through the API again. */
  released: number;
  /** What changed, one line each (`queue main: concurrency 1 → 3`), for the check run on the commit. */
  changes: string[];
}

/**
 * Applies a repository's `.github/mergeq.yml` (docs/mergeq-yml.md): the queues it names get exactly
 * its settings (a setting it leaves out takes its default) and are marked as managed by it, as are
 * its templates and the queues made from them; what it managed and no longer names is released
 * (managed through the API again), never deleted.
 */
export class RepoConfigService {
  private readonly writer: QueueDocWriter;

  constructor(private readonly deps: { store: { queues: QueueStore; templates: QueueTemplateStore }; clock: Clock; newId: () => string; notify: (queueId: string) => void }) {
    this.writer = new QueueDocWriter(deps.store, () => deps.clock.now());
  }

  /** `source`: `.github/mergeq.yml@<sha>`. `config` null: the file was removed. */
  async apply(org: Org, repo: RepoRef, source: string, config: RepoConfig | null): Promise<AppliedRepoConfig> {
    const { store } = this.deps;
    const key = repoKey(repo);
    const now = this.deps.clock.now().toISOString();
    const queues = config?.queues ?? [];
    for (const q of queues) assertSettingsInBounds(q.settings);
    const applied: AppliedRepoConfig = { queuesCreated: 0, queuesUpdated: 0, templates: 0, released: 0, changes: [] };

    const patterns = new Map(queues.flatMap((q) => (q.pattern === undefined ? [] : [[q.pattern, q.settings] as const])));
    const existingTemplates = await store.templates.listTemplates({ repoKey: key });
    for (const [pattern, settings] of patterns) {
      const existing = existingTemplates.find((t) => t.pattern === pattern);
      await putFileTemplate(store.templates, { orgId: org.id, repo: { ...repo }, repoKey: key, pattern, settings, settingsSource: source, createdAt: now, updatedAt: now });
      applied.templates++;
      if (!existing) applied.changes.push(`template ${pattern}: created`);
      else if (JSON.stringify(existing.settings) !== JSON.stringify(settings)) applied.changes.push(`template ${pattern}: settings replaced`);
    }
    for (const t of existingTemplates) {
      if (patterns.has(t.pattern) || !isManagedByFile(t.settingsSource)) continue;
      if (await releaseFileTemplate(store.templates, key, t.pattern, now)) {
        applied.released++;
        applied.changes.push(`template ${t.pattern}: no longer managed by the file`);
      }
    }

    const branches = new Map(queues.flatMap((q) => (q.branch === undefined ? [] : [[q.branch, q.settings] as const])));
    const stored = await store.queues.listQueues({ repoKey: key });
    for (const [branch, settings] of branches) {
      if (stored.some((q) => q.branch === branch)) {
        if (await this.manage(key, branch, settings, source, applied.changes)) applied.queuesUpdated++;
      } else if (await this.create(org, repo, branch, settings, source, now, applied.changes)) {
        applied.queuesCreated++;
        applied.changes.push(`queue ${branch}: created`);
      }
    }
    for (const q of stored) {
      if (branches.has(q.branch)) continue;
      const fromPattern = q.createdFrom && patterns.get(q.createdFrom.pattern);
      if (fromPattern) {
        if (await this.manage(key, q.branch, fromPattern, source, applied.changes)) applied.queuesUpdated++;
      } else if (isManagedByFile(q.settingsSource)) {
        await this.release(key, q.branch);
        applied.released++;
        applied.changes.push(`queue ${q.branch}: no longer managed by the file`);
      }
    }
    return applied;
  }

  private async create(org: Org, repo: RepoRef, branch: string, settings: QueueSettingsPatch, source: string, now: string, changes: string[]): Promise<boolean> {
    const queue = newQueueDoc({ id: this.deps.newId(), orgId: org.id, repo, branch, settings: defaultSettings(settings), at: now, version: 0, settingsSource: source });
    try {
      await this.deps.store.queues.insertQueue(queue, queueEvents(null, queue, now));
    } catch (err) {
      // Created meanwhile (a submit from a template, the API): take it over instead.
      if (err instanceof ConflictError) return this.manage(queue.repoKey, branch, settings, source, changes);
      throw err;
    }
    this.deps.notify(queue.id);
    return true;
  }

  /** Gives the queue exactly these settings (the others their defaults), managed by `source`; true when that changed it (each setting changed is added to `changes`). */
  private async manage(repoKeyOf: string, branch: string, settings: QueueSettingsPatch, source: string, changes: string[]): Promise<boolean> {
    const wanted = defaultSettings(settings);
    let said: string[] = [];
    const changed = await this.change(repoKeyOf, branch, (current) => {
      if (sameSettings(current.settings, wanted, current.switching?.toMode) && current.settingsSource === source) return null;
      said = settingChanges(current.settings, wanted).map((c) => `queue ${branch}: ${c}`);
      return { ...changeSettings(current, wanted, undefined, this.deps.clock.now()), settingsSource: source };
    });
    if (changed) changes.push(...said);
    return changed;
  }

  private release(repoKeyOf: string, branch: string): Promise<boolean> {
    return this.change(repoKeyOf, branch, (current) => {
      if (!isManagedByFile(current.settingsSource)) return null;
      // eslint-disable-next-line @typescript-eslint/no-unused-vars
      const { settingsSource, ...rest } = current;
      return { ...rest, updatedAt: this.deps.clock.now().toISOString() };
    });
  }

  private async change(repoKeyOf: string, branch: string, next: (current: QueueDoc) => QueueDoc | null): Promise<boolean> {
    const { queue, changed } = await this.writer.update({ repoKey: repoKeyOf, branch }, (current) => {
      const doc = next(current);
      return doc ? { queue: doc, result: null } : { unchanged: true, result: null };
    });
    if (changed) this.deps.notify(queue.id);
    return changed;
  }
}

/** Each setting that differs, as `name old → new` (values as JSON). */
function settingChanges(current: QueueSettings, wanted: QueueSettings): string[] {
  const names = Object.keys(wanted) as (keyof QueueSettings)[];
  return names.filter((n) => JSON.stringify(current[n]) !== JSON.stringify(wanted[n])).map((n) => `${n} ${JSON.stringify(current[n])} → ${JSON.stringify(wanted[n])}`);
}

/** A mode switch under way counts as the mode it goes to. */
function sameSettings(current: QueueSettings, wanted: QueueSettings, switchingTo: string | undefined): boolean {
  const effective = { ...current, mode: switchingTo ?? current.mode };
  return JSON.stringify(Object.entries(effective).sort()) === JSON.stringify(Object.entries(wanted).sort());
}
