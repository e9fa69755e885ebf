import type Database from 'better-sqlite3';

/**
 * Schema migrations, applied in order; `PRAGMA user_version` records how many have run. Append new
 * migrations at the end, never edit one that has shipped.
 *
 * Documents are stored as JSON text (`doc`); the other columns are the keys the queries need. A
 * queue's document is split into its head (in `queues`) and rows (`queue_entries`, `queue_runs`, `queue_units`).
 */
const MIGRATIONS: readonly string[] = [
  `
  CREATE TABLE orgs (
    id   TEXT PRIMARY KEY,
    slug TEXT NOT NULL UNIQUE,
    doc  TEXT NOT NULL
  );
  CREATE TABLE org_owners (
    owner_key TEXT PRIMARY KEY,
    org_id    TEXT NOT NULL REFERENCES orgs(id)
  );
  CREATE TABLE tokens (
    id     TEXT PRIMARY KEY,
    org_id TEXT NOT NULL,
    hash   TEXT NOT NULL UNIQUE,
    doc    TEXT NOT NULL
  );
  CREATE INDEX tokens_by_org ON tokens(org_id);

  CREATE TABLE queues (
    id       TEXT PRIMARY KEY,
    repo_key TEXT NOT NULL,
    branch   TEXT NOT NULL,
    org_id   TEXT NOT NULL,
    version  INTEGER NOT NULL,
    doc      TEXT NOT NULL,
    UNIQUE (repo_key, branch)
  );
  CREATE INDEX queues_by_org ON queues(org_id);

  CREATE TABLE archived_entries (
    id               TEXT PRIMARY KEY,
    queue_id         TEXT NOT NULL,
    pr_number        INTEGER NOT NULL,
    seq              INTEGER NOT NULL,
    state_changed_at TEXT NOT NULL,
    doc              TEXT NOT NULL
  );
  CREATE INDEX archived_entries_by_pr ON archived_entries(queue_id, pr_number, seq);
  CREATE INDEX archived_entries_by_end ON archived_entries(queue_id, state_changed_at);

  CREATE TABLE archived_runs (
    id          TEXT PRIMARY KEY,
    queue_id    TEXT NOT NULL,
    created_at  TEXT NOT NULL,
    finished_at TEXT,
    doc         TEXT NOT NULL
  );
  CREATE INDEX archived_runs_by_queue ON archived_runs(queue_id, finished_at);
  -- The PR numbers a run tested, so runs can be found by PR without reading their documents.
  CREATE TABLE archived_run_prs (
    run_id    TEXT NOT NULL,
    queue_id  TEXT NOT NULL,
    pr_number INTEGER NOT NULL,
    PRIMARY KEY (run_id, pr_number)
  );
  CREATE INDEX archived_run_prs_by_pr ON archived_run_prs(queue_id, pr_number);

  -- One row per PR head. names: the target names joined by "\\n" (encoding 'lines'), or a JSON
  -- array when a name contains a newline (encoding 'json'). Joined text reads and writes a list of
  -- hundreds of thousands of names in milliseconds, where a row per name would take seconds.
  CREATE TABLE impacted_targets (
    repo_key    TEXT NOT NULL,
    pr_number   INTEGER NOT NULL,
    sha         TEXT NOT NULL,
    all_targets INTEGER NOT NULL,
    count       INTEGER NOT NULL,
    encoding    TEXT NOT NULL,
    names       TEXT NOT NULL,
    PRIMARY KEY (repo_key, pr_number, sha)
  );

  CREATE TABLE secrets (
    name  TEXT PRIMARY KEY,
    value TEXT NOT NULL
  );

  CREATE TABLE test_cases (
    repo_key       TEXT NOT NULL,
    test_case_id   TEXT NOT NULL,
    quarantined_at TEXT,
    doc            TEXT NOT NULL,
    PRIMARY KEY (repo_key, test_case_id)
  );
  CREATE INDEX test_cases_quarantined ON test_cases(repo_key, quarantined_at DESC, test_case_id)
    WHERE quarantined_at IS NOT NULL;
  `,
  `
  -- GitHub webhook delivery ids already handled, with when they were first seen.
  CREATE TABLE webhook_deliveries (
    id TEXT PRIMARY KEY,
    at TEXT NOT NULL
  );
  CREATE INDEX webhook_deliveries_by_at ON webhook_deliveries(at);
  `,
  `
  -- Flaky tests. Uploads keep their answer, so a repeated uploadId answers the same.
  CREATE TABLE test_uploads (
    repo_key  TEXT NOT NULL,
    upload_id TEXT NOT NULL,
    doc       TEXT NOT NULL,
    PRIMARY KEY (repo_key, upload_id)
  );
  -- One row per test case per upload; a row is small and there are many, so no JSON document.
  CREATE TABLE test_results (
    seq            INTEGER PRIMARY KEY,
    repo_key       TEXT NOT NULL,
    test_case_id   TEXT NOT NULL,
    upload_id      TEXT NOT NULL,
    commit_sha     TEXT NOT NULL,
    branch         TEXT,
    outcome        TEXT NOT NULL,
    failed_attempts INTEGER NOT NULL,
    passed_attempts INTEGER NOT NULL,
    at             TEXT NOT NULL,
    ignored        INTEGER NOT NULL
  );
  CREATE INDEX test_results_by_case ON test_results(repo_key, test_case_id, at);
  CREATE INDEX test_results_by_age ON test_results(repo_key, at);
  CREATE TABLE test_case_events (
    seq          INTEGER PRIMARY KEY AUTOINCREMENT,
    repo_key     TEXT NOT NULL,
    test_case_id TEXT NOT NULL,
    doc          TEXT NOT NULL
  );
  CREATE INDEX test_case_events_by_case ON test_case_events(repo_key, test_case_id, seq);
  CREATE TABLE flaky_settings (
    repo_key TEXT PRIMARY KEY,
    doc      TEXT NOT NULL
  );
  -- Columns for the queries detection and metrics make without reading documents.
  ALTER TABLE test_cases ADD COLUMN status TEXT NOT NULL DEFAULT 'healthy';
  ALTER TABLE test_cases ADD COLUMN last_failed_at TEXT;
  UPDATE test_cases SET status = json_extract(doc, '$.status'), last_failed_at = json_extract(doc, '$.lastFailedAt');
  CREATE INDEX test_cases_to_watch ON test_cases(repo_key, status);
  `,
  `
  -- Retention: when a list was last put or needed by a queued entry, and the bytes of its names.
  ALTER TABLE impacted_targets ADD COLUMN used_at TEXT NOT NULL DEFAULT '';
  ALTER TABLE impacted_targets ADD COLUMN bytes INTEGER NOT NULL DEFAULT 0;
  UPDATE impacted_targets SET bytes = length(CAST(names AS BLOB));
  CREATE INDEX impacted_targets_by_use ON impacted_targets(used_at);
  CREATE INDEX impacted_targets_by_repo_use ON impacted_targets(repo_key, used_at);
  CREATE INDEX archived_runs_by_finish ON archived_runs(finished_at);
  CREATE INDEX archived_entries_by_change ON archived_entries(state_changed_at);
  `,
  `
  -- The per-queue lease: which replica may act on a queue, until when (epoch ms).
  CREATE TABLE leases (
    name       TEXT PRIMARY KEY,
    holder     TEXT NOT NULL,
    expires_at INTEGER NOT NULL
  );
  `,
  `
  -- A row per active entry, live run and unit of a queue, so a commit writes what changed; the queue
  -- row keeps the rest of the document (its head). ord: the position in the document's array (a
  -- row inserted between two takes a position between theirs). No index on ord: a commit writes
  -- fewer pages, and only a first read of a queue in a process sorts its rows.
  CREATE TABLE queue_entries (
    queue_id TEXT NOT NULL,
    id       TEXT NOT NULL,
    ord      REAL NOT NULL,
    doc      TEXT NOT NULL,
    PRIMARY KEY (queue_id, id)
  );
  CREATE TABLE queue_runs (
    queue_id TEXT NOT NULL,
    id       TEXT NOT NULL,
    ord      REAL NOT NULL,
    doc      TEXT NOT NULL,
    PRIMARY KEY (queue_id, id)
  );
  CREATE TABLE queue_units (
    queue_id TEXT NOT NULL,
    id       TEXT NOT NULL,
    ord      REAL NOT NULL,
    doc      TEXT NOT NULL,
    PRIMARY KEY (queue_id, id)
  );
  INSERT INTO queue_entries (queue_id, id, ord, doc)
    SELECT q.id, json_extract(e.value, '$.id'), e.key, e.value FROM queues q, json_each(q.doc, '$.entries') e;
  INSERT INTO queue_runs (queue_id, id, ord, doc)
    SELECT q.id, json_extract(r.value, '$.id'), r.key, r.value FROM queues q, json_each(q.doc, '$.runs') r;
  INSERT INTO queue_units (queue_id, id, ord, doc)
    SELECT q.id, json_extract(u.value, '$.id'), u.key, u.value FROM queues q, json_each(q.doc, '$.units') u;
  UPDATE queues SET doc = json_remove(doc, '$.entries', '$.runs', '$.units', '$.version');
  `,
];

/** Brings the database to the latest schema. Safe to call on every open, from several processes. */
export function migrate(db: Database.Database): void {
  // IMMEDIATE takes the write lock first, so two processes opening a new file do not both migrate.
  db.transaction(() => {
    const current = db.pragma('user_version', { simple: true }) as number;
    for (let i = current; i < MIGRATIONS.length; i++) db.exec(MIGRATIONS[i]!);
    if (current < MIGRATIONS.length) db.pragma(`user_version = ${MIGRATIONS.length}`);
  }).immediate();
}
