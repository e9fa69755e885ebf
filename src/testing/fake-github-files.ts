import type { Reply } from './fake-github-types.js';

/**
 * Files of the fake repository, per commit (a test puts each file at the commits it wants), served by
 * the contents API (`GET /contents/{path}?ref=`; no ref: the default branch's head), and the
 * repository itself (`GET` of its root: its default branch).
 */
export class FakeFiles {
  private readonly byCommit = new Map<string, Map<string, string>>();

  constructor(
    private readonly refs: ReadonlyMap<string, string>,
    readonly defaultBranch = 'main',
  ) {}

  /** `text` at `path` in commit `sha`; null removes it. */
  put(sha: string, path: string, text: string | null): void {
    const files = this.byCommit.get(sha) ?? new Map<string, string>();
    if (text === null) files.delete(path);
    else files.set(path, text);
    this.byCommit.set(sha, files);
  }

  /** The answer to `route` (`METHOD /path` below the repository), or null when it is not one of these. */
  route(route: string, uri: string): Reply | null {
    if (route === 'GET ') return [200, { name: 'widgets', default_branch: this.defaultBranch }];
    const m = /^GET \/contents\/(.+)$/.exec(route);
    if (!m) return null;
    const ref = new URL(uri, 'http://fake').searchParams.get('ref') ?? this.defaultBranch;
    const sha = this.refs.get(ref) ?? ref;
    const text = this.byCommit.get(sha)?.get(m[1]!);
    if (text === undefined) return [404, { message: 'Not Found' }];
    return [200, { type: 'file', path: m[1], encoding: 'base64', content: Buffer.from(text, 'utf8').toString('base64') }];
  }
}
