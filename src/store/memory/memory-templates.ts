import type { QueueTemplate } from '../../domain/queue-template.js';
import { ConflictError } from '../errors.js';
import { fieldsHold } from '../fields-hold.js';
import type { QueueTemplateStore } from '../template-store.js';

const keyOf = (repoKey: string, pattern: string) => `${repoKey}\n${pattern}`;

export class MemoryTemplates implements QueueTemplateStore {
  private readonly rows = new Map<string, QueueTemplate>();

  async insertTemplate(template: QueueTemplate): Promise<void> {
    const key = keyOf(template.repoKey, template.pattern);
    if (this.rows.has(key)) throw new ConflictError(`a template for ${template.pattern} exists`);
    this.rows.set(key, structuredClone(template));
  }

  async putTemplate(template: QueueTemplate): Promise<void> {
    this.rows.set(keyOf(template.repoKey, template.pattern), structuredClone(template));
  }

  async updateTemplate(repoKey: string, pattern: string, expected: Partial<QueueTemplate>, changes: Partial<QueueTemplate>): Promise<boolean> {
    const row = this.rows.get(keyOf(repoKey, pattern));
    if (!row || !fieldsHold(row, expected)) return false;
    this.rows.set(keyOf(repoKey, pattern), structuredClone({ ...row, ...changes, repoKey, pattern }));
    return true;
  }

  async getTemplate(repoKey: string, pattern: string): Promise<QueueTemplate | null> {
    const row = this.rows.get(keyOf(repoKey, pattern));
    return row ? structuredClone(row) : null;
  }

  async listTemplates(filter: { orgId?: string; repoKey?: string }): Promise<QueueTemplate[]> {
    return [...this.rows.values()]
      .filter((t) => (filter.orgId === undefined || t.orgId === filter.orgId) && (filter.repoKey === undefined || t.repoKey === filter.repoKey))
      .sort((a, b) => (a.repoKey === b.repoKey ? cmp(a.pattern, b.pattern) : cmp(a.repoKey, b.repoKey)))
      .map((t) => structuredClone(t));
  }

  async deleteTemplate(repoKey: string, pattern: string, expected: Partial<QueueTemplate> = {}): Promise<boolean> {
    const row = this.rows.get(keyOf(repoKey, pattern));
    return !!row && fieldsHold(row, expected) && this.rows.delete(keyOf(repoKey, pattern));
  }
}

function cmp(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
