import { cpSync, existsSync, mkdirSync, readFileSync, statSync, symlinkSync } from 'node:fs';
import { basename, dirname, join, posix } from 'node:path';

/**
 * The Dockerfile read as far as the image's files go: each stage's COPY lines, WORKDIR, ENV and CMD.
 * There is no Docker daemon in CI, so the image's runtime files are laid out from the repository as
 * these lines say; a file the image forgets is then missing from the layout, as it would be in the image.
 */
export interface Copy {
  from: string | null;
  sources: string[];
  dest: string;
  workdir: string;
}

export interface Stage {
  name: string | null;
  copies: Copy[];
  env: Record<string, string>;
  cmd: string[] | null;
  healthcheck: string[] | null;
}

function instructions(text: string): string[] {
  return text
    .replace(/\\\r?\n/g, ' ')
    .split(/\r?\n/)
    .map((line) => line.trim())
    .filter((line) => line !== '' && !line.startsWith('#'));
}

function envPairs(rest: string): Record<string, string> {
  const env: Record<string, string> = {};
  for (const match of rest.matchAll(/([A-Za-z_][A-Za-z0-9_]*)=("[^"]*"|\S*)/g)) env[match[1]!] = match[2]!.replace(/^"|"$/g, '');
  return env;
}

export function parseDockerfile(text: string): Stage[] {
  const stages: Stage[] = [];
  let workdir = '/';
  for (const line of instructions(text)) {
    const [keyword = '', ...words] = line.split(/\s+/);
    const rest = line.slice(keyword.length).trim();
    const stage = stages.at(-1);
    switch (keyword.toUpperCase()) {
      case 'FROM':
        stages.push({ name: /\bAS\s+(\S+)/i.exec(rest)?.[1] ?? null, copies: [], env: {}, cmd: null, healthcheck: null });
        workdir = '/';
        break;
      case 'WORKDIR':
        workdir = posix.resolve(workdir, rest);
        break;
      case 'ENV':
        Object.assign(stage!.env, envPairs(rest));
        break;
      case 'CMD':
        stage!.cmd = JSON.parse(rest) as string[];
        break;
      case 'HEALTHCHECK':
        stage!.healthcheck = JSON.parse(rest.slice(rest.indexOf('CMD') + 3).trim()) as string[];
        break;
      case 'COPY': {
        const flags = words.filter((w) => w.startsWith('--'));
        const paths = words.filter((w) => !w.startsWith('--'));
        const from = flags.find((f) => f.startsWith('--from='))?.slice('--from='.length) ?? null;
        stage!.copies.push({ from, sources: paths.slice(0, -1), dest: paths.at(-1)!, workdir });
        break;
      }
    }
  }
  return stages;
}

/** Whether `.dockerignore` keeps a path out of the build context (its plain entries and `*` suffixes). */
function ignored(patterns: string[], path: string): boolean {
  const clean = path.replace(/^\.\//, '').replace(/\/$/, '');
  return patterns.some((pattern) => {
    if (pattern.includes('*')) return new RegExp(`^${pattern.replace(/[.]/g, '\\.').replace(/\*/g, '[^/]*')}(/|$)`).test(clean);
    return clean === pattern || clean.startsWith(`${pattern}/`);
  });
}

/**
 * Lays out the files of the Dockerfile's last stage under `root` (its WORKDIR paths made relative
 * to `root`). A build stage holds what its COPY lines bring from the context plus `built` (what its
 * RUN lines make, e.g. dist and node_modules): a runtime COPY of anything else fails, as in Docker.
 * `link` names paths laid out as a symbolic link instead of a copy (node_modules: large, and
 * nothing there looks for the package's own files).
 */
export function layOutRuntime(repo: string, root: string, built: string[], link: string[]): Stage {
  const stages = parseDockerfile(readFileSync(join(repo, 'Dockerfile'), 'utf8'));
  const dockerignore = existsSync(join(repo, '.dockerignore'))
    ? readFileSync(join(repo, '.dockerignore'), 'utf8').split('\n').map((l) => l.trim()).filter((l) => l && !l.startsWith('#'))
    : [];
  const runtime = stages.at(-1)!;

  // Where in the repository a build stage's absolute path comes from.
  const stageSource = (stageName: string, absolute: string): string => {
    const stage = stages.find((s) => s.name === stageName);
    if (!stage) throw new Error(`COPY --from=${stageName}: no such stage`);
    for (const copy of stage.copies) {
      for (const source of copy.sources) {
        const dest = posix.resolve(copy.workdir, copy.dest);
        const target = copy.dest.endsWith('/') || copy.sources.length > 1 ? posix.join(dest, basename(source)) : dest;
        if (absolute === target || absolute.startsWith(`${target}/`)) return contextSource(source) + absolute.slice(target.length);
      }
    }
    const workdir = stage.copies[0]?.workdir ?? '/';
    const inWorkdir = posix.relative(workdir, absolute);
    if (built.some((b) => inWorkdir === b || inWorkdir.startsWith(`${b}/`))) return join(repo, inWorkdir);
    throw new Error(`COPY --from=${stageName} ${absolute}: the ${stageName} stage has no such file`);
  };
  const contextSource = (source: string): string => {
    if (ignored(dockerignore, source)) throw new Error(`COPY ${source}: left out of the build context by .dockerignore`);
    return join(repo, source);
  };

  for (const copy of runtime.copies) {
    const dest = join(root, posix.relative('/', posix.resolve(copy.workdir, copy.dest)));
    for (const source of copy.sources) {
      const from = copy.from ? stageSource(copy.from, posix.resolve('/', source)) : contextSource(source);
      if (!existsSync(from)) throw new Error(`COPY ${source}: ${from} does not exist`);
      const target = statSync(from).isFile() && (copy.dest.endsWith('/') || copy.sources.length > 1) ? join(dest, basename(from)) : dest;
      mkdirSync(dirname(target), { recursive: true });
      if (link.includes(basename(from))) symlinkSync(from, target);
      else cpSync(from, target, { recursive: true });
    }
  }
  return runtime;
}
