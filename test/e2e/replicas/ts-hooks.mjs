// Module hooks that let a child process run mergeq from its TypeScript sources (transpiled one file
// at a time, like ts-jest with isolatedModules): `node --import ./ts-loader.mjs src/cli/main.ts`.
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { fileURLToPath, URL } from 'node:url';
import ts from 'typescript';

export async function resolve(specifier, context, next) {
  if (specifier.endsWith('.js') && /^\.{1,2}\//.test(specifier) && context.parentURL?.endsWith('.ts')) {
    const asTs = new URL(specifier.replace(/\.js$/, '.ts'), context.parentURL);
    if (existsSync(fileURLToPath(asTs))) return { url: asTs.href, shortCircuit: true };
  }
  return next(specifier, context);
}

export async function load(url, context, next) {
  if (!url.endsWith('.ts')) return next(url, context);
  const path = fileURLToPath(url);
  const { outputText } = ts.transpileModule(await readFile(path, 'utf8'), {
    fileName: path,
    compilerOptions: { module: ts.ModuleKind.ESNext, target: ts.ScriptTarget.ES2022, isolatedModules: true },
  });
  return { format: 'module', source: outputText, shortCircuit: true };
}
