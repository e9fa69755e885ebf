import type Database from 'better-sqlite3';
import type { Entry } from '../../domain/entry.js';
import type { TestRun } from '../../domain/run.js';
import type { RunFilter } from '../store.js';
import { parseDoc, parseDocs } from './json-docs.js';

/** Ended entries and finished runs moved out of queues, with the keys their queries need. */
export class SqliteArchiveTables {
  private readonly stmt;
  private readonly pruneTx;

  constructor(db: Database.Database) {
    this.stmt = {
      upsertEntry: db.prepare(
        `INSERT INTO archived_entries (id, queue_id, pr_number, seq, state_changed_at, doc)
         VALUES (@id, @queueId, @prNumber, @seq, @stateChangedAt, @doc)
         ON CONFLICT (id) DO UPDATE SET queue_id = excluded.queue_id, pr_number = excluded.pr_number,
           seq = excluded.seq, state_changed_at = excluded.state_changed_at, doc = excluded.doc`,
      ),
      latestEntry: db
        .prepare('SELECT doc FROM archived_entries WHERE queue_id = ? AND pr_number = ? ORDER BY seq DESC LIMIT 1')
        .pluck(),
      entriesEndedSince: db
        .prepare(
          `SELECT doc FROM archived_entries
           WHERE queue_id IN (SELECT value FROM json_each(?)) AND state_changed_at >= ?
           ORDER BY state_changed_at, queue_id, seq`,
        )
        .pluck(),
      upsertRun: db.prepare(
        `INSERT INTO archived_runs (id, queue_id, created_at, finished_at, doc)
         VALUES (@id, @queueId, @createdAt, @finishedAt, @doc)
         ON CONFLICT (id) DO UPDATE SET queue_id = excluded.queue_id, created_at = excluded.created_at,
           finished_at = excluded.finished_at, doc = excluded.doc`,
      ),
      deleteRunPrs: db.prepare('DELETE FROM archived_run_prs WHERE run_id = ?'),
      insertRunPr: db.prepare('INSERT OR IGNORE INTO archived_run_prs (run_id, queue_id, pr_number) VALUES (?, ?, ?)'),
      // Both run queries take every filter; a null parameter means "not filtered".
      runs: db
        .prepare(
          `SELECT doc FROM archived_runs
           WHERE queue_id = @queueId AND (@runId IS NULL OR id = @runId)
             AND (@finishedSince IS NULL OR finished_at >= @finishedSince)
           ORDER BY finished_at DESC, created_at DESC, id`,
        )
        .pluck(),
      runsOfPr: db
        .prepare(
          `SELECT doc FROM archived_runs
           WHERE id IN (SELECT run_id FROM archived_run_prs WHERE queue_id = @queueId AND pr_number = @prNumber)
             AND queue_id = @queueId AND (@runId IS NULL OR id = @runId)
             AND (@finishedSince IS NULL OR finished_at >= @finishedSince)
           ORDER BY finished_at DESC, created_at DESC, id`,
        )
        .pluck(),
      pruneEntries: db.prepare('DELETE FROM archived_entries WHERE state_changed_at < ?'),
      pruneRunPrs: db.prepare(
        'DELETE FROM archived_run_prs WHERE run_id IN (SELECT id FROM archived_runs WHERE COALESCE(finished_at, created_at) < ?)',
      ),
      pruneRuns: db.prepare('DELETE FROM archived_runs WHERE COALESCE(finished_at, created_at) < ?'),
    };
    this.pruneTx = db.transaction((endedBefore: string) => {
      const entries = this.stmt.pruneEntries.run(endedBefore).changes;
      this.stmt.pruneRunPrs.run(endedBefore);
      const runs = this.stmt.pruneRuns.run(endedBefore).changes;
      return { entries, runs };
    });
  }

  /** Upsert by id: writing it again after a failed or interrupted commit is harmless. */
  putEntry(entry: Entry): void {
    this.stmt.upsertEntry.run({
      id: entry.id,
      queueId: entry.queueId,
      prNumber: entry.prNumber,
      seq: entry.seq,
      stateChangedAt: entry.stateChangedAt,
      doc: JSON.stringify(entry),
    });
  }

  putRun(run: TestRun): void {
    this.stmt.upsertRun.run({
      id: run.id,
      queueId: run.queueId,
      createdAt: run.createdAt,
      finishedAt: run.finishedAt,
      doc: JSON.stringify(run),
    });
    this.stmt.deleteRunPrs.run(run.id);
    for (const pr of run.prs) this.stmt.insertRunPr.run(run.id, run.queueId, pr.prNumber);
  }

  async latestEntry(queueId: string, prNumber: number): Promise<Entry | null> {
    return parseDoc<Entry>(this.stmt.latestEntry.get(queueId, prNumber));
  }

  async entriesEndedSince(queueIds: string[], since: string): Promise<Entry[]> {
    if (queueIds.length === 0) return [];
    return parseDocs<Entry>(this.stmt.entriesEndedSince.all(JSON.stringify(queueIds), since));
  }

  async runs(queueId: string, filter: RunFilter): Promise<TestRun[]> {
    const params = { queueId, runId: filter.runId ?? null, finishedSince: filter.finishedSince ?? null };
    const rows =
      filter.prNumber === undefined ? this.stmt.runs.all(params) : this.stmt.runsOfPr.all({ ...params, prNumber: filter.prNumber });
    return parseDocs<TestRun>(rows);
  }

  async prune(endedBefore: string): Promise<{ entries: number; runs: number }> {
    return this.pruneTx.immediate(endedBefore);
  }
}
