import { describe, expect, it } from '@jest/globals';
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, posix, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { IMPORT_EXCEPTIONS, SIZE_EXCEPTIONS } from './exceptions.js';

/**
 * The layering table of architecture.md ("Layers and what each may touch") and the 400-line bound on
 * source files, checked on the import statements of src/**\/*.ts (read with TypeScript's own
 * pre-processor: static imports, re-exports and dynamic `import()`). Known breaches are listed, each
 * with its reason, in exceptions.ts; a listed breach that is gone fails too, so the list stays true.
 */
const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const MAX_LINES = 400;
/** Longer than this, a file must be named with its reason in the README's source map. */
const NAMED_OVER = 300;

/**
 * What each layer (a folder of src/) may import besides itself: folders, subfolders or single files
 * (the ports: `store/store.ts`, `githost/githost.ts`). `config`, `server` and `bench` are the wiring
 * (composition roots: they build everything) and are not constrained.
 */
const MAY_IMPORT: Record<string, readonly string[]> = {
  domain: [],
  // Not in the table: the outbound events of a queue commit, pure types and filters beside the domain.
  events: ['domain'],
  planner: ['domain'],
  // Not in the table: the flaky-test detection rules, pure like the planner, used by the service.
  flaky: ['domain'],
  // Not in the table: the JSON representations of queues, PRs and runs that the doors and the
  // outbound webhooks answer with (pure).
  records: ['domain'],
  // Not in the table: what the engine and the service both do with a stored queue document — commit a
  // change (one compare-and-set loop, one lock per queue) and estimate its merges.
  'queue-docs': ['domain', 'events', 'planner', 'store/store.ts'],
  engine: ['domain', 'events', 'planner', 'queue-docs', 'store/store.ts', 'githost/githost.ts'],
  store: ['domain', 'events'],
  githost: ['domain'],
  service: ['domain', 'events', 'planner', 'engine', 'queue-docs', 'records', 'store', 'githost', 'flaky', 'webhooks'],
  // Not in the table: outbound webhook delivery (started by the server), reading the outbox.
  webhooks: ['domain', 'events', 'records', 'store/store.ts', 'store/outbox-store.ts'],
  // Not in the table: the stateful fake GitHub of the tests and bench:github (not in the published package).
  testing: [],
  http: ['domain', 'events', 'records', 'service'],
  metrics: ['domain', 'service'],
  // `serve` starts the server; the admin commands open the store they administer (with-store.ts), as
  // the server does, and act on it through OrgService.
  cli: ['domain', 'records', 'service', 'config', 'server', 'store/open.ts', 'store/store.ts'],
  // The App is GitHub's door: its webhook endpoint (on the HTTP layer's body reading and errors), it
  // reads webhook payloads with the GitHub adapter's mapping and answers with its installation client.
  'github-app': ['domain', 'records', 'service', 'http', 'githost/github'],
  // The simulator wires the engine itself, like the server: with an in-memory store (the Store port)
  // and the FlakyTestService for the test results its CI uploads.
  sim: ['domain', 'events', 'planner', 'engine', 'queue-docs', 'githost/githost.ts', 'githost/sandbox', 'store', 'service', 'flaky'],
};

/** "nothing with I/O": the packages the pure layers may use. */
const PURE_PACKAGES: Record<string, readonly string[]> = {
  // @date-fns/tz: dates in an IANA time zone (merge windows), from Intl: no I/O, no clock.
  // picomatch: branch globs (queue templates, chat channels' branches), pure string matching.
  domain: ['uuid', '@date-fns/tz', 'picomatch'],
  records: [],
  events: [],
  planner: [],
  flaky: ['uuid', 'saxes'],
};
/** The database drivers belong to the store's adapters. */
const DRIVERS = ['better-sqlite3', 'mongodb'];

interface Import {
  from: string;
  /** `src/...` for a file of the project, else the package name. */
  to: string;
}

function sourceFiles(dir = join(ROOT, 'src')): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? sourceFiles(join(dir, e.name)) : e.name.endsWith('.ts') ? [relative(ROOT, join(dir, e.name)).split('\\').join('/')] : [],
  );
}

function importsOf(file: string): Import[] {
  const info = ts.preProcessFile(readFileSync(join(ROOT, file), 'utf8'), true, true);
  return info.importedFiles.map(({ fileName }) => {
    if (!fileName.startsWith('.')) return { from: file, to: packageName(fileName) };
    return { from: file, to: posix.join(posix.dirname(file), fileName).replace(/\.js$/, '.ts') };
  });
}

function packageName(specifier: string): string {
  if (specifier.startsWith('node:')) return specifier;
  const parts = specifier.split('/');
  return specifier.startsWith('@') ? parts.slice(0, 2).join('/') : (parts[0] ?? specifier);
}

const layerOf = (file: string): string => file.split('/')[1] ?? '';

function allowed(from: string, to: string): boolean {
  const layer = layerOf(from);
  const rules = MAY_IMPORT[layer];
  if (!to.startsWith('src/')) {
    const pure = PURE_PACKAGES[layer];
    if (pure) return pure.includes(to);
    return !DRIVERS.includes(to) || layer === 'store';
  }
  if (!rules || layerOf(to) === layer) return true;
  const target = to.slice('src/'.length);
  return rules.some((rule) => (rule.endsWith('.ts') ? target === rule : target === rule || target.startsWith(`${rule}/`)));
}

/**
 * The whole Store (every role port) is named only by the wiring, which opens it and hands each
 * consumer the roles it uses (`{ queues: QueueStore; targets: TargetStore }`): the server, the
 * simulator, the benchmarks, the CLI's with-store.ts, and the store itself.
 */
const WHOLE_STORE_NAMED_BY = ['src/store/', 'src/server/', 'src/sim/', 'src/bench/', 'src/cli/with-store.ts'];

/** Whether `text` (the source of `file`) imports the type `Store` from src/store/store.ts. */
function namesWholeStore(file: string, text: string): boolean {
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest);
  return source.statements.some((s) => {
    if (!ts.isImportDeclaration(s) || !ts.isStringLiteral(s.moduleSpecifier) || !s.moduleSpecifier.text.startsWith('.')) return false;
    if (posix.join(posix.dirname(file), s.moduleSpecifier.text).replace(/\.js$/, '.ts') !== 'src/store/store.ts') return false;
    const bindings = s.importClause?.namedBindings;
    return bindings !== undefined && ts.isNamedImports(bindings) && bindings.elements.some((e) => (e.propertyName ?? e.name).text === 'Store');
  });
}

const mayNameWholeStore = (file: string) => WHOLE_STORE_NAMED_BY.some((w) => (w.endsWith('/') ? file.startsWith(w) : file === w));

const files = sourceFiles();
const breaches = files.flatMap(importsOf).filter((i) => !allowed(i.from, i.to)).map((i) => `${i.from} -> ${i.to}`);
const excepted = new Set(IMPORT_EXCEPTIONS.flatMap((e) => e.imports));

describe('layering (architecture.md)', () => {
  it('reads the imports of every source file, dynamic ones included', () => {
    expect(files.length).toBeGreaterThan(100);
    expect(importsOf('src/cli/commands/serve.ts').map((i) => i.to)).toContain('src/server/start-server.ts');
  });

  it('no import breaks the layering table, beyond the listed exceptions', () => {
    expect(breaches.filter((b) => !excepted.has(b))).toEqual([]);
  });

  it('every listed exception still exists (remove the ones a change has fixed)', () => {
    const found = new Set(breaches);
    expect([...excepted].filter((e) => !found.has(e))).toEqual([]);
  });

  it('the check is real: it flags what the table forbids', () => {
    expect(allowed('src/planner/plan.ts', 'src/githost/githost.ts')).toBe(false);
    expect(allowed('src/http/app.ts', 'src/store/store.ts')).toBe(false);
    expect(allowed('src/engine/engine.ts', 'src/store/sqlite/sqlite-store.ts')).toBe(false);
    expect(allowed('src/domain/ids.ts', 'node:fs')).toBe(false);
    expect(allowed('src/service/queue/queue-service.ts', 'better-sqlite3')).toBe(false);
    expect(allowed('src/engine/engine.ts', 'src/store/store.ts')).toBe(true);
    expect(allowed('src/webhooks/payload.ts', 'src/service/queue/queue-service.ts')).toBe(false);
    expect(allowed('src/records/queue-record.ts', 'src/store/store.ts')).toBe(false);
    expect(allowed('src/http/app.ts', 'src/service/access/api-access.ts')).toBe(true);
  });
});

describe('the whole Store is named only by the wiring', () => {
  it('every other file takes the role ports it uses', () => {
    const naming = files.filter((f) => namesWholeStore(f, readFileSync(join(ROOT, f), 'utf8')));
    expect(naming.filter((f) => !mayNameWholeStore(f))).toEqual([]);
    expect(naming).toContain('src/server/start-server.ts');
  });

  it('the check is real: it flags an import of Store, renamed or not, and nothing else', () => {
    expect(namesWholeStore('src/engine/a.ts', "import type { Store } from '../store/store.js';")).toBe(true);
    expect(namesWholeStore('src/service/a.ts', "import type { Archive, Store as S } from '../store/store.js';")).toBe(true);
    expect(namesWholeStore('src/engine/a.ts', "import type { QueueStore, TargetStore } from '../store/store.js';")).toBe(false);
    expect(mayNameWholeStore('src/engine/worker.ts')).toBe(false);
    expect(mayNameWholeStore('src/cli/commands/webhook.ts')).toBe(false);
    expect(mayNameWholeStore('src/cli/with-store.ts')).toBe(true);
  });
});

describe(`source files (at most ${MAX_LINES} lines)`, () => {
  const lengths = new Map(files.map((f) => [f, readFileSync(join(ROOT, f), 'utf8').split('\n').length - 1]));

  it(`a file over ${NAMED_OVER} lines is named, with its reason, in the README's source map`, () => {
    const sourceMap = readFileSync(join(ROOT, 'README.md'), 'utf8').split('## Source map')[1] ?? '';
    const unnamed = [...lengths].filter(([f, n]) => n > NAMED_OVER && !sourceMap.includes(f)).map(([f, n]) => `${f}: ${n} lines`);
    expect(unnamed).toEqual([]);
  });
  const tooLong = [...lengths].filter(([, n]) => n > MAX_LINES).map(([f]) => f);
  const exceptedSizes = new Set(SIZE_EXCEPTIONS.map((e) => e.file));

  it('no source file is longer, beyond the listed exceptions', () => {
    expect(tooLong.filter((f) => !exceptedSizes.has(f)).map((f) => `${f}: ${lengths.get(f)} lines`)).toEqual([]);
  });

  it('every listed exception is still too long (remove the ones a change has split)', () => {
    expect([...exceptedSizes].filter((f) => !tooLong.includes(f))).toEqual([]);
  });
});
