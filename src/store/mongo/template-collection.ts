import type { Collection, Db } from 'mongodb';
import type { QueueTemplate } from '../../domain/queue-template.js';
import { ConflictError } from '../errors.js';
import type { QueueTemplateStore } from '../template-store.js';
import { fieldsFilter, isDuplicateKey } from './collection-ops.js';

const NO_ID = { projection: { _id: 0 } } as const;

/** Queue templates in MongoDB: one document per (repoKey, pattern) (unique index). */
export class MongoTemplates implements QueueTemplateStore {
  private readonly templates: Collection<QueueTemplate>;

  constructor(db: Db) {
    this.templates = db.collection('queue_templates');
  }

  async createIndexes(): Promise<void> {
    await this.templates.createIndexes([{ key: { repoKey: 1, pattern: 1 }, unique: true }, { key: { orgId: 1, repoKey: 1, pattern: 1 } }]);
  }

  async insertTemplate(template: QueueTemplate): Promise<void> {
    try {
      // A copy: the driver adds `_id` to what it inserts.
      await this.templates.insertOne(structuredClone(template));
    } catch (err) {
      if (isDuplicateKey(err)) throw new ConflictError(`a template for ${template.pattern} exists`);
      throw err;
    }
  }

  async putTemplate(template: QueueTemplate): Promise<void> {
    await this.templates.replaceOne({ repoKey: template.repoKey, pattern: template.pattern }, structuredClone(template), { upsert: true });
  }

  async updateTemplate(repoKey: string, pattern: string, expected: Partial<QueueTemplate>, changes: Partial<QueueTemplate>): Promise<boolean> {
    const { matchedCount } = await this.templates.updateOne({ ...fieldsFilter(expected), repoKey, pattern }, { $set: { ...changes, repoKey, pattern } });
    return matchedCount === 1;
  }

  async getTemplate(repoKey: string, pattern: string): Promise<QueueTemplate | null> {
    return this.templates.findOne({ repoKey, pattern }, NO_ID);
  }

  async listTemplates(filter: { orgId?: string; repoKey?: string }): Promise<QueueTemplate[]> {
    const query = { ...(filter.orgId === undefined ? {} : { orgId: filter.orgId }), ...(filter.repoKey === undefined ? {} : { repoKey: filter.repoKey }) };
    return this.templates.find(query, NO_ID).sort({ repoKey: 1, pattern: 1 }).toArray();
  }

  async deleteTemplate(repoKey: string, pattern: string, expected: Partial<QueueTemplate> = {}): Promise<boolean> {
    return (await this.templates.deleteOne({ ...fieldsFilter(expected), repoKey, pattern })).deletedCount > 0;
  }
}
