/** A reader of Prometheus text exposition (0.0.4), enough for tests to look values up by labels. */

export interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

const SAMPLE_LINE = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)$/;
const LABEL = /([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)",?/gy;

export function parseSamples(text: string): Sample[] {
  const samples: Sample[] = [];
  for (const line of text.split('\n')) {
    if (line === '' || line.startsWith('#')) continue;
    const match = SAMPLE_LINE.exec(line);
    if (!match) throw new Error(`not a sample line: ${line}`);
    samples.push({ name: match[1]!, labels: parseLabels(match[2] ?? ''), value: Number(match[3]) });
  }
  return samples;
}

function parseLabels(text: string): Record<string, string> {
  const labels: Record<string, string> = {};
  LABEL.lastIndex = 0;
  let consumed = 0;
  for (let m = LABEL.exec(text); m; m = LABEL.exec(text)) {
    labels[m[1]!] = m[2]!.replace(/\\(.)/g, (_, c: string) => (c === 'n' ? '\n' : c));
    consumed = LABEL.lastIndex;
  }
  if (consumed !== text.length) throw new Error(`bad label set: {${text}}`);
  return labels;
}

/** `# TYPE` of every metric family, by name. */
export function familyTypes(text: string): Map<string, string> {
  const types = new Map<string, string>();
  for (const line of text.split('\n')) {
    const m = /^# TYPE (\S+) (\S+)$/.exec(line);
    if (m) types.set(m[1]!, m[2]!);
  }
  return types;
}

/** Names of the families that have a `# HELP` line. */
export function familiesWithHelp(text: string): Set<string> {
  return new Set(text.split('\n').flatMap((line) => /^# HELP (\S+) /.exec(line)?.[1] ?? []));
}

/** The value of the one sample with exactly these labels; undefined when there is none. */
export function valueOf(samples: Sample[], name: string, labels: Record<string, string>): number | undefined {
  const matches = samples.filter((s) => s.name === name && sameLabels(s.labels, labels));
  if (matches.length > 1) throw new Error(`${matches.length} samples of ${name} with labels ${JSON.stringify(labels)}`);
  return matches[0]?.value;
}

function sameLabels(a: Record<string, string>, b: Record<string, string>): boolean {
  const keys = Object.keys(a);
  return keys.length === Object.keys(b).length && keys.every((k) => a[k] === b[k]);
}
