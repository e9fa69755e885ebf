import type Database from 'better-sqlite3';
import type { QueueTemplate } from '../../domain/queue-template.js';
import { ConflictError } from '../errors.js';
import { fieldsHold } from '../fields-hold.js';
import type { QueueTemplateStore } from '../template-store.js';

/** Queue templates in SQLite; the table is created here (IF NOT EXISTS), like the inbox's. */
const SCHEMA = `
  CREATE TABLE IF NOT EXISTS queue_templates (
    repo_key TEXT NOT NULL,
    pattern  TEXT NOT NULL,
    org_id   TEXT NOT NULL,
    doc      TEXT NOT NULL,
    PRIMARY KEY (repo_key, pattern)
  );
  CREATE INDEX IF NOT EXISTS queue_templates_by_org ON queue_templates(org_id);
`;

export class SqliteTemplateTable implements QueueTemplateStore {
  private readonly stmt;

  constructor(private readonly db: Database.Database) {
    db.exec(SCHEMA);
    this.stmt = {
      insert: db.prepare('INSERT INTO queue_templates (repo_key, pattern, org_id, doc) VALUES (@repoKey, @pattern, @orgId, @doc)'),
      put: db.prepare('INSERT OR REPLACE INTO queue_templates (repo_key, pattern, org_id, doc) VALUES (@repoKey, @pattern, @orgId, @doc)'),
      get: db.prepare('SELECT doc FROM queue_templates WHERE repo_key = ? AND pattern = ?').pluck(),
      list: db
        .prepare(
          `SELECT doc FROM queue_templates WHERE (@orgId IS NULL OR org_id = @orgId) AND (@repoKey IS NULL OR repo_key = @repoKey)
           ORDER BY repo_key, pattern`,
        )
        .pluck(),
      delete: db.prepare('DELETE FROM queue_templates WHERE repo_key = ? AND pattern = ?'),
    };
  }

  async insertTemplate(template: QueueTemplate): Promise<void> {
    try {
      this.stmt.insert.run(rowOf(template));
    } catch (err) {
      if ((err as { code?: string }).code === 'SQLITE_CONSTRAINT_PRIMARYKEY') throw new ConflictError(`a template for ${template.pattern} exists`);
      throw err;
    }
  }

  async putTemplate(template: QueueTemplate): Promise<void> {
    this.stmt.put.run(rowOf(template));
  }

  async updateTemplate(repoKey: string, pattern: string, expected: Partial<QueueTemplate>, changes: Partial<QueueTemplate>): Promise<boolean> {
    return this.db.transaction(() => {
      const doc = this.stmt.get.get(repoKey, pattern) as string | undefined;
      const row = doc === undefined ? null : (JSON.parse(doc) as QueueTemplate);
      if (!row || !fieldsHold(row, expected)) return false;
      this.stmt.put.run(rowOf({ ...row, ...changes, repoKey, pattern }));
      return true;
    }).immediate();
  }

  async getTemplate(repoKey: string, pattern: string): Promise<QueueTemplate | null> {
    const doc = this.stmt.get.get(repoKey, pattern) as string | undefined;
    return doc === undefined ? null : (JSON.parse(doc) as QueueTemplate);
  }

  async listTemplates(filter: { orgId?: string; repoKey?: string }): Promise<QueueTemplate[]> {
    const docs = this.stmt.list.all({ orgId: filter.orgId ?? null, repoKey: filter.repoKey ?? null }) as string[];
    return docs.map((d) => JSON.parse(d) as QueueTemplate);
  }

  async deleteTemplate(repoKey: string, pattern: string, expected: Partial<QueueTemplate> = {}): Promise<boolean> {
    return this.db.transaction(() => {
      const doc = this.stmt.get.get(repoKey, pattern) as string | undefined;
      if (doc === undefined || !fieldsHold(JSON.parse(doc) as QueueTemplate, expected)) return false;
      return this.stmt.delete.run(repoKey, pattern).changes > 0;
    }).immediate();
  }
}

function rowOf(t: QueueTemplate) {
  return { repoKey: t.repoKey, pattern: t.pattern, orgId: t.orgId, doc: JSON.stringify(t) };
}
