import { MAX_PRIORITY, MIN_PRIORITY, PRIORITY_NAMES, type PriorityName } from '../domain/priority.js';

/** What a `/merge` comment asks for (github.md, "Comment commands"). */
export type MergeCommand =
  | { kind: 'submit'; priority?: PriorityName | number; noBatch: boolean }
  | { kind: 'cancel' }
  | { kind: 'restart' }
  | { kind: 'status' };

export type ParsedComment =
  /** The comment holds no `/merge` line: not for us. */
  | { kind: 'none' }
  | { kind: 'command'; command: MergeCommand }
  /** A `/merge` line we cannot read: answer with `message` (it ends with the usage line). */
  | { kind: 'invalid'; message: string };

export const USAGE =
  'Usage: `/merge [--priority=urgent|high|medium|low|0-255] [--no-batch]`, `/merge cancel`, `/merge restart` or `/merge status`.';

const SUBCOMMANDS = { cancel: 'cancel', restart: 'restart', status: 'status' } as const;

/**
 * Reads the first line of a comment that starts with `/merge` (quoted lines, `> /merge`, do not
 * count). Options may be written `--priority=high`, `--priority high` or `-p high`.
 */
export function parseComment(body: string): ParsedComment {
  const line = body.split(/\r?\n/).map((l) => l.trim()).find((l) => /^\/merge(\s|$)/.test(l));
  if (line === undefined) return { kind: 'none' };
  const words = line.split(/\s+/).slice(1);
  const first = words[0];
  if (first !== undefined && !first.startsWith('-')) {
    const kind = SUBCOMMANDS[first.toLowerCase() as keyof typeof SUBCOMMANDS];
    if (!kind) return invalid(`\`${first}\` is not a /merge command.`);
    if (words.length > 1) return invalid(`\`/merge ${kind}\` takes no options.`);
    return { kind: 'command', command: { kind } };
  }
  return parseSubmit(words);
}

function parseSubmit(words: string[]): ParsedComment {
  let priority: PriorityName | number | undefined;
  let noBatch = false;
  for (let i = 0; i < words.length; i++) {
    const word = words[i]!;
    if (word === '--no-batch') {
      noBatch = true;
      continue;
    }
    const inline = /^--priority=(.*)$/.exec(word);
    if (inline || word === '--priority' || word === '-p') {
      const value = inline ? inline[1]! : words[++i];
      if (value === undefined || value === '') return invalid(`\`${word}\` needs a value.`);
      const parsed = parsePriority(value);
      if (parsed === null) return invalid(`\`${value}\` is not a priority: use urgent, high, medium, low or a number from ${MIN_PRIORITY} to ${MAX_PRIORITY}.`);
      priority = parsed;
      continue;
    }
    return invalid(`\`${word}\` is not an option of /merge.`);
  }
  return { kind: 'command', command: { kind: 'submit', noBatch, ...(priority === undefined ? {} : { priority }) } };
}

function parsePriority(value: string): PriorityName | number | null {
  const name = value.toLowerCase();
  if (Object.hasOwn(PRIORITY_NAMES, name)) return name as PriorityName;
  if (!/^\d{1,3}$/.test(value)) return null;
  const n = Number(value);
  return n >= MIN_PRIORITY && n <= MAX_PRIORITY ? n : null;
}

function invalid(what: string): ParsedComment {
  return { kind: 'invalid', message: `${what} ${USAGE}` };
}
