import { isMap, isScalar, LineCounter, parseDocument, type Document } from 'yaml';
import type { z } from 'zod';
import { closestName } from '../domain/closest-name.js';
import { settingsPatchOf } from '../service/queue/queue-service.js';
import type { RepoConfigParse } from '../service/repo-settings/repo-config.js';
import { mergeqYmlSchema } from './schemas/mergeq-yml.js';
import { settingsFields } from './schemas/queue.js';

/** Larger files are refused before they are parsed. */
export const MAX_FILE_BYTES = 64 * 1024;

/**
 * Reads `.github/mergeq.yml`: YAML, then the schema. A problem is told as `line N: path: message`,
 * the first in the file's order, with how many others there are; an unknown key is told with the
 * known one it most likely meant (`line 7: queues[0].concurency: unknown setting, did you mean concurrency?`).
 */
export function parseMergeqYml(text: string): RepoConfigParse {
  if (Buffer.byteLength(text, 'utf8') > MAX_FILE_BYTES) return { ok: false, problem: `line 1: the file is larger than ${MAX_FILE_BYTES / 1024} KB` };
  const lines = new LineCounter();
  const doc = parseDocument(text, { lineCounter: lines, uniqueKeys: true, prettyErrors: false });
  if (doc.errors.length > 0) {
    const e = doc.errors[0]!;
    return { ok: false, problem: `line ${lines.linePos(e.pos[0]).line}: not valid YAML: ${e.message.split('\n')[0]}` };
  }
  let data: unknown;
  try {
    data = doc.toJS({ maxAliasCount: 100 }) ?? {};
  } catch (err) {
    // Aliases expanding past the bound (a "billion laughs" file).
    return { ok: false, problem: `line 1: not valid YAML: ${(err as Error).message}` };
  }
  const parsed = mergeqYmlSchema.safeParse(data);
  if (!parsed.success) {
    const problems = parsed.error.issues.flatMap((issue) => problemsOf(issue, doc, lines)).sort((a, b) => a.line - b.line);
    const first = problems[0]!;
    const more = problems.length > 1 ? ` (and ${problems.length - 1} more)` : '';
    return { ok: false, problem: `line ${first.line}: ${first.text}${more}` };
  }
  return {
    ok: true,
    config: {
      queues: parsed.data.queues.map(({ branch, pattern, ...settings }) =>
        branch !== undefined ? { branch, settings: settingsPatchOf(settings) } : { pattern: pattern!, settings: settingsPatchOf(settings) },
      ),
    },
  };
}

function problemsOf(issue: z.core.$ZodIssue, doc: Document, lines: LineCounter): { line: number; text: string }[] {
  const path = issue.path.filter((p): p is string | number => typeof p !== 'symbol');
  if (issue.code === 'unrecognized_keys') {
    const node = doc.getIn(path, true);
    const known = knownKeys(path);
    return issue.keys.map((key) => {
      const pair = isMap(node) ? node.items.find((p) => isScalar(p.key) && String(p.key.value) === key) : undefined;
      const offset = (isScalar(pair?.key) ? pair.key.range?.[0] : undefined) ?? 0;
      const guess = closestName(key, known);
      const what = path.length === 0 ? 'unknown key' : 'unknown setting';
      return { line: lines.linePos(offset).line, text: `${pathText([...path, key])}: ${what}${guess ? `, did you mean ${guess}?` : ''}` };
    });
  }
  const node = nearestNode(doc, path);
  const offset = node?.range?.[0] ?? 0;
  return [{ line: lines.linePos(offset).line, text: `${pathText(path) || 'the file'}: ${issue.message}` }];
}

/** The keys an object of the file may have: the file's own at the top, a queue's below. */
function knownKeys(path: (string | number)[]): string[] {
  return path.length === 0 ? ['queues'] : ['branch', 'pattern', ...Object.keys(settingsFields)];
}

/** The node at `path`, or its closest ancestor present in the file (a missing field's map). */
function nearestNode(doc: Document, path: (string | number)[]): { range?: [number, number, number] | null } | null {
  for (let n = path.length; n >= 0; n--) {
    const node = n === 0 ? doc.contents : doc.getIn(path.slice(0, n), true);
    if (node && typeof node === 'object' && 'range' in node) return node as { range?: [number, number, number] | null };
  }
  return null;
}

function pathText(path: (string | number)[]): string {
  return path.reduce<string>((s, p) => (typeof p === 'number' ? `${s}[${p}]` : s ? `${s}.${p}` : p), '');
}
