import type { FakePull, Reply } from './fake-github-types.js';

/** What plain chains of PRs need of the rest of the fake GitHub. */
export interface ChainWorld {
  readonly pulls: Map<number, FakePull>;
  readonly refs: Map<string, string>;
  emit(action: string, pull: FakePull, extra?: Record<string, unknown>): void;
  headRefOf(pull: FakePull): string;
  pullResource(pull: FakePull): Record<string, unknown>;
}

/**
 * Plain chains of PRs (each based on the head branch of the one below) as GitHub treats them:
 * `PATCH …/pulls/{n} {base}` retargets an open PR; deleting a branch closes the open PRs based on it,
 * unless the PR of that branch was merged: then they are retargeted to its base.
 */
export function retarget(world: ChainWorld, number: number, body: Record<string, unknown>): Reply {
  const pull = world.pulls.get(number);
  if (!pull) return [404, { message: 'Not Found' }];
  if (typeof body.base === 'string' && body.base !== pull.base) {
    if (pull.state !== 'open') return validationFailed('Cannot change the base branch of a closed pull request.');
    if (!world.refs.has(body.base)) return validationFailed(`Proposed base branch '${body.base}' was not found`);
    const from = pull.base;
    pull.base = body.base;
    world.emit('edited', pull, { changes: { base: { ref: { from } } } });
  }
  if (typeof body.title === 'string') pull.title = body.title;
  return [200, world.pullResource(pull)];
}

/** After branch `name` is deleted: the open PRs based on it are retargeted or closed. */
export function branchDeleted(world: ChainWorld, name: string): void {
  const own = [...world.pulls.values()].find((p) => world.headRefOf(p) === name);
  for (const pull of [...world.pulls.values()].sort((a, b) => a.number - b.number)) {
    if (pull.state !== 'open' || pull.base !== name) continue;
    if (own?.merged) {
      pull.base = own.base;
      world.emit('edited', pull, { changes: { base: { ref: { from: name } } } });
    } else {
      pull.state = 'closed';
      world.emit('closed', pull);
    }
  }
  if (own && own.state === 'open') {
    own.state = 'closed';
    world.emit('closed', own);
  }
}

/**
 * `GET …/pulls?state=open|closed|all&base&head=owner:branch&per_page&page`, newest first, with GitHub's
 * `link` to the next page.
 */
export function listPulls(world: ChainWorld, uri: string, repoUrl: string): Reply {
  const query = new URL(uri, 'http://fake').searchParams;
  const state = query.get('state') ?? 'open';
  const base = query.get('base');
  const head = query.get('head')?.split(':').pop();
  const perPage = Number(query.get('per_page') ?? 30);
  const page = Number(query.get('page') ?? 1);
  const all = [...world.pulls.values()]
    .filter((p) => (state === 'all' || p.state === state) && (base === null || p.base === base) && (head === undefined || world.headRefOf(p) === head))
    .sort((a, b) => b.number - a.number);
  const data = all.slice((page - 1) * perPage, page * perPage).map((p) => world.pullResource(p));
  if (page * perPage >= all.length) return [200, data];
  const filters = `${base === null ? '' : `&base=${base}`}${query.has('head') ? `&head=${query.get('head')}` : ''}`;
  return [200, data, { link: `<${repoUrl}/pulls?state=${state}${filters}&per_page=${perPage}&page=${page + 1}>; rel="next"` }];
}

function validationFailed(message: string): Reply {
  return [422, { message: 'Validation Failed', errors: [{ resource: 'PullRequest', field: 'base', code: 'invalid', message }] }];
}
