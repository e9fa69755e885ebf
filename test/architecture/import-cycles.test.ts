import { beforeAll, describe, expect, it } from '@jest/globals';
import { execFile } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

/**
 * No import circle in src/, type-only imports included (dpdm reads every import of every file): each
 * folder and file can be read from the bottom up. And the planner's `parallel/` is a leaf: the
 * dependency graph's algorithms, fed by the planner, know nothing of it.
 */
const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');

type Tree = Record<string, { id: string | null }[] | null>;

/**
 * dpdm run by Node itself: its CommonJS build requires an ES module (chalk), which Node loads and
 * jest's module runtime does not. Prints the dependency tree of src/ and its circles as JSON.
 */
const SCRIPT = `
const dpdm = require('dpdm');
const circle = {
  'a.ts': [{ issuer: 'a.ts', request: './b.js', kind: 'StaticImport', id: 'b.ts' }],
  'b.ts': [{ issuer: 'b.ts', request: './a.js', kind: 'StaticImport', id: 'a.ts' }],
};
dpdm.parseDependencyTree('src/**/*.ts', { context: process.cwd(), tsconfig: 'tsconfig.json', transform: false, exclude: /node_modules/ }).then((tree) => {
  process.stdout.write(JSON.stringify({ tree, circles: dpdm.parseCircular(tree, false), known: dpdm.parseCircular(circle, false) }));
});
`;

describe('imports', () => {
  let tree: Tree;
  let circles: string[][];
  let known: string[][];
  beforeAll(async () => {
    const { stdout } = await promisify(execFile)(process.execPath, ['-e', SCRIPT], { cwd: ROOT, maxBuffer: 64 * 1024 * 1024 });
    ({ tree, circles, known } = JSON.parse(stdout) as { tree: Tree; circles: string[][]; known: string[][] });
  }, 180_000);

  it('reads every source file', () => {
    expect(Object.keys(tree).filter((f) => f.startsWith('src/')).length).toBeGreaterThan(300);
  });

  it('form no circle in src/', () => {
    expect(circles.map((c) => c.join(' -> '))).toEqual([]);
  });

  it('the check is real: it finds a circle that exists', () => {
    expect(known).toEqual([['a.ts', 'b.ts']]);
  });

  it('planner/parallel/ imports nothing of the planner outside itself', () => {
    const outside = Object.entries(tree)
      .filter(([file]) => file.startsWith('src/planner/parallel/'))
      .flatMap(([file, deps]) => (deps ?? []).filter((d) => d.id?.startsWith('src/') && !d.id.startsWith('src/planner/parallel/') && !d.id.startsWith('src/domain/')).map((d) => `${file} -> ${d.id}`));
    expect(outside).toEqual([]);
  });
});
