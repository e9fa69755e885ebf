import { isMap, isScalar, LineCounter, parseDocument, type Document } from 'yaml';
import type { z } from 'zod';
import { closestName } from '../domain/closest-name.js';
import { settingsPatchOf } from '../service/queue/queue-service.js';
import type { RepoConfigParse } from '../service/repo-settings/repo-config.js';
import { mergeqYmlSchema } from './schemas/mergeq-yml.js';
import { keysAt } from './schemas/keys-at.js';

/** Larger files are refused before they are parsed. */
export const MAX_FILE_BYTES = 64 * 1024;

/**
 * Reads `.github/mergeq.yml`: YAML, then the schema. A problem is told as `line N: path: message`,
 * the first in the file's order, with how many others there are, and each on its own line
 * (`problems`: a check run annotates each); an unknown key is told with the key valid at that path it
 * most likely meant (`line 7: queues[0].concurency: unknown setting, did you mean concurrency?`,
 * `line 9: queues[0].mergeWindows.windows[0].ends: unknown key, did you mean end?`), before the
 * missing key it leaves behind.
 */
export function parseMergeqYml(text: string): RepoConfigParse {
  if (Buffer.byteLength(text, 'utf8') > MAX_FILE_BYTES) return failed([{ line: 1, text: `the file is larger than ${MAX_FILE_BYTES / 1024} KB` }]);
  const lines = new LineCounter();
  const doc = parseDocument(text, { lineCounter: lines, uniqueKeys: true, prettyErrors: false });
  if (doc.errors.length > 0) {
    const e = doc.errors[0]!;
    return failed([{ line: lines.linePos(e.pos[0]).line, text: `not valid YAML: ${e.message.split('\n')[0]}` }]);
  }
  let data: unknown;
  try {
    data = doc.toJS({ maxAliasCount: 100 }) ?? {};
  } catch (err) {
    // Aliases expanding past the bound (a "billion laughs" file).
    return failed([{ line: 1, text: `not valid YAML: ${(err as Error).message}` }]);
  }
  const parsed = mergeqYmlSchema.safeParse(data);
  if (!parsed.success) {
    return failed(inFileOrder(parsed.error.issues.flatMap((issue) => problemsOf(issue, doc, lines))));
  }
  return {
    ok: true,
    config: {
      queues: parsed.data.queues.map(({ branch, pattern, ...settings }) =>
        branch !== undefined ? { branch, settings: settingsPatchOf(settings) } : { pattern: pattern!, settings: settingsPatchOf(settings) },
      ),
      channels: parsed.data.channels.map(({ channel, events, verdicts, branches, mentions }, i) => ({
        channel,
        line: lineOf(doc, lines, ['channels', i, 'channel']),
        ...(events ? { events } : {}),
        ...(verdicts ? { verdicts } : {}),
        ...(branches ? { branches } : {}),
        ...(mentions ? { mentions } : {}),
      })),
    },
  };
}

/** What a channel's secret is called by someone who puts it in the file. */
const SECRET_KEYS: ReadonlySet<string> = new Set(['url', 'webhook', 'webhookUrl', 'slackBotToken', 'token', 'botToken', 'secret']);
const SECRET_HINT = ': a channel\'s URL and bot token are secrets, set through webhooks/create or mergeq webhook create, never in the repository';

/** One problem of the file: its line, what it says, and the object it is in when it is an unknown key or a missing one. */
interface Problem {
  line: number;
  text: string;
  unknownIn?: string;
  missingIn?: string;
}

function failed(problems: readonly Problem[]): RepoConfigParse {
  const first = problems[0]!;
  const more = problems.length > 1 ? ` (and ${problems.length - 1} more)` : '';
  return { ok: false, problem: `line ${first.line}: ${first.text}${more}`, problems: problems.map(({ line, text }) => ({ line, message: text })) };
}

/**
 * In the file's order, except that a key missing from an object that has an unknown key comes after
 * that key: a misspelt `ends:` is named before the `end` it leaves missing.
 */
function inFileOrder(problems: Problem[]): Problem[] {
  const unknownLine = new Map<string, number>();
  for (const p of problems) if (p.unknownIn !== undefined) unknownLine.set(p.unknownIn, Math.max(unknownLine.get(p.unknownIn) ?? 0, p.line));
  const order = (p: Problem) => (p.missingIn !== undefined && unknownLine.has(p.missingIn) ? unknownLine.get(p.missingIn)! + 0.5 : p.line);
  return problems.map((p, i) => ({ p, i })).sort((a, b) => order(a.p) - order(b.p) || a.i - b.i).map(({ p }) => p);
}

function problemsOf(issue: z.core.$ZodIssue, doc: Document, lines: LineCounter): Problem[] {
  const path = issue.path.filter((p): p is string | number => typeof p !== 'symbol');
  if (issue.code === 'unrecognized_keys') {
    const node = doc.getIn(path, true);
    const known = keysAt(mergeqYmlSchema, path);
    return issue.keys.map((key) => {
      const pair = isMap(node) ? node.items.find((p) => isScalar(p.key) && String(p.key.value) === key) : undefined;
      const offset = (isScalar(pair?.key) ? pair.key.range?.[0] : undefined) ?? 0;
      const guess = closestName(key, known);
      const what = path.length === 2 && path[0] === 'queues' ? 'unknown setting' : 'unknown key'; // a queue's own keys are its settings
      const hint = path[0] === 'channels' && SECRET_KEYS.has(key) ? SECRET_HINT : guess ? `, did you mean ${guess}?` : '';
      return { line: lines.linePos(offset).line, text: `${pathText([...path, key])}: ${what}${hint}`, unknownIn: pathText(path) };
    });
  }
  const { node, depth } = nearestNode(doc, path);
  const offset = node?.range?.[0] ?? 0;
  const problem: Problem = { line: lines.linePos(offset).line, text: `${pathText(path) || 'the file'}: ${issue.message}` };
  return [depth === path.length - 1 ? { ...problem, missingIn: pathText(path.slice(0, -1)) } : problem];
}

/** The node at `path`, or its closest ancestor present in the file (a missing field's map), and how deep it is. */
function nearestNode(doc: Document, path: (string | number)[]): { node: { range?: [number, number, number] | null } | null; depth: number } {
  for (let n = path.length; n >= 0; n--) {
    const node = n === 0 ? doc.contents : doc.getIn(path.slice(0, n), true);
    if (node && typeof node === 'object' && 'range' in node) return { node: node as { range?: [number, number, number] | null }, depth: n };
  }
  return { node: null, depth: 0 };
}

/** The line of the node at `path` (or of its closest ancestor in the file). */
function lineOf(doc: Document, lines: LineCounter, path: (string | number)[]): number {
  return lines.linePos(nearestNode(doc, path).node?.range?.[0] ?? 0).line;
}

function pathText(path: (string | number)[]): string {
  return path.reduce<string>((s, p) => (typeof p === 'number' ? `${s}[${p}]` : s ? `${s}.${p}` : p), '');
}
