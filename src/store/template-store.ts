import type { QueueTemplate } from '../domain/queue-template.js';

/** Queue templates for branch patterns, one per (repoKey, pattern). Adapters copy in and out. */
export interface QueueTemplateStore {
  /** Throws ConflictError when the repository has a template for that pattern. */
  insertTemplate(template: QueueTemplate): Promise<void>;
  /** Stores the template, replacing the one of the same (repoKey, pattern) if any. */
  putTemplate(template: QueueTemplate): Promise<void>;
  /**
   * Compare-and-set on fields (see fields-hold.ts): sets `changes` only while every field of `expected`
   * still holds the value read. False when one changed or the template is gone.
   */
  updateTemplate(repoKey: string, pattern: string, expected: Partial<QueueTemplate>, changes: Partial<QueueTemplate>): Promise<boolean>;
  getTemplate(repoKey: string, pattern: string): Promise<QueueTemplate | null>;
  /** By repoKey, then pattern. */
  listTemplates(filter: { orgId?: string; repoKey?: string }): Promise<QueueTemplate[]>;
  /** False when there was none, or when a field of `expected` no longer holds the value read (see fields-hold.ts). */
  deleteTemplate(repoKey: string, pattern: string, expected?: Partial<QueueTemplate>): Promise<boolean>;
}
