import type Database from 'better-sqlite3';
import { targetNameBytes } from '../../domain/retention.js';
import type { ImpactedTargets } from '../../domain/targets.js';
import type { PutTargetsOptions, TargetStore, TargetsHead } from '../store.js';

/** Impacted-target lists (`impacted_targets`): names joined by newlines when none holds one, else JSON. */
export class SqliteTargets implements TargetStore {
  private readonly stmt;
  private readonly putTx;

  constructor(private readonly db: Database.Database) {
    this.stmt = {
      put: db.prepare(
        `INSERT OR REPLACE INTO impacted_targets (repo_key, pr_number, sha, all_targets, count, encoding, names, used_at, bytes)
         VALUES (@repoKey, @prNumber, @sha, @all, @count, @encoding, @names, @usedAt, @bytes)`,
      ),
      ofRepoByUse: db.prepare('SELECT pr_number AS prNumber, sha, bytes FROM impacted_targets WHERE repo_key = ? ORDER BY used_at, pr_number, sha'),
      delete: db.prepare('DELETE FROM impacted_targets WHERE repo_key = ? AND pr_number = ? AND sha = ?'),
      touch: db.prepare('UPDATE impacted_targets SET used_at = ? WHERE repo_key = ? AND pr_number = ? AND sha = ? AND used_at < ?'),
      prune: db.prepare('DELETE FROM impacted_targets WHERE used_at < ?'),
      get: db.prepare('SELECT all_targets, count, encoding, names FROM impacted_targets WHERE repo_key = ? AND pr_number = ? AND sha = ?'),
    };
    this.putTx = db.transaction((row: Record<string, unknown>, maxBytesPerRepo: number | undefined) => {
      this.stmt.put.run(row);
      if (maxBytesPerRepo === undefined) return;
      const lists = this.stmt.ofRepoByUse.all(row.repoKey) as { prNumber: number; sha: string; bytes: number }[];
      let total = lists.reduce((sum, l) => sum + l.bytes, 0);
      for (const list of lists) {
        if (total <= maxBytesPerRepo) break;
        if (list.prNumber === row.prNumber && list.sha === row.sha) continue;
        this.stmt.delete.run(row.repoKey, list.prNumber, list.sha);
        total -= list.bytes;
      }
    });
  }

  async putImpactedTargets(repoKey: string, prNumber: number, sha: string, targets: ImpactedTargets, options: PutTargetsOptions = {}): Promise<void> {
    const names = targets.all ? [] : targets.targets;
    const joined = names.join('\n');
    // Joining is reversible only when no name holds a newline, i.e. the text has exactly the separators.
    const lines = names.length === 0 || countNewlines(joined) === names.length - 1;
    const text = lines ? joined : JSON.stringify(names);
    const row = {
      repoKey,
      prNumber,
      sha,
      all: targets.all ? 1 : 0,
      count: names.length,
      encoding: lines ? 'lines' : 'json',
      names: text,
      usedAt: options.at ?? new Date().toISOString(),
      // Joined text holds the names and one separator between each two.
      bytes: lines ? Buffer.byteLength(text) - Math.max(0, names.length - 1) : targetNameBytes(names),
    };
    this.putTx.immediate(row, options.maxBytesPerRepo);
  }

  async touchImpactedTargets(repoKey: string, heads: readonly TargetsHead[], at: string): Promise<void> {
    this.db.transaction(() => {
      for (const head of heads) this.stmt.touch.run(at, repoKey, head.prNumber, head.sha, at);
    })();
  }

  async pruneImpactedTargets(unusedSince: string): Promise<number> {
    return this.stmt.prune.run(unusedSince).changes;
  }

  async getImpactedTargets(repoKey: string, prNumber: number, sha: string): Promise<ImpactedTargets | null> {
    const row = this.stmt.get.get(repoKey, prNumber, sha) as
      | { all_targets: number; count: number; encoding: 'lines' | 'json'; names: string }
      | undefined;
    if (!row) return null;
    if (row.all_targets) return { all: true };
    if (row.count === 0) return { all: false, targets: [] };
    return { all: false, targets: row.encoding === 'lines' ? row.names.split('\n') : (JSON.parse(row.names) as string[]) };
  }
}

function countNewlines(text: string): number {
  let count = 0;
  for (let i = text.indexOf('\n'); i !== -1; i = text.indexOf('\n', i + 1)) count++;
  return count;
}
