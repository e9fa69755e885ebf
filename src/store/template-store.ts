import type { QueueTemplate } from '../domain/queue-template.js';

/** Queue templates for branch patterns, one per (repoKey, pattern). Adapters copy in and out. */
export interface QueueTemplateStore {
  /** Throws ConflictError when the repository has a template for that pattern. */
  insertTemplate(template: QueueTemplate): Promise<void>;
  /** Stores the template, replacing the one of the same (repoKey, pattern) if any. */
  putTemplate(template: QueueTemplate): Promise<void>;
  getTemplate(repoKey: string, pattern: string): Promise<QueueTemplate | null>;
  /** By repoKey, then pattern. */
  listTemplates(filter: { orgId?: string; repoKey?: string }): Promise<QueueTemplate[]>;
  /** False when there was none. */
  deleteTemplate(repoKey: string, pattern: string): Promise<boolean>;
}
