/**
 * What a GitHub request is to the write budget: whether it creates content, how urgent it is, and
 * which writes it replaces (github.md, "Write budget").
 */

/**
 * In the order they are sent: acknowledgements of commands (a reaction: one per command, so a person
 * hears first however short the budget), the queue's own work, final statuses, comments, then the rest.
 */
export const WRITE_CLASSES = ['ack', 'queue', 'final', 'comment', 'low'] as const;
export type WriteClass = (typeof WRITE_CLASSES)[number];

/** What a write is, for metrics and for counting writes per merged PR. */
export const WRITE_KINDS = ['merges', 'refs', 'statuses', 'comments', 'reactions', 'pulls', 'other'] as const;
export type WriteKind = (typeof WRITE_KINDS)[number];

export interface WriteClassification {
  cls: WriteClass;
  kind: WriteKind;
  key: string | null;
}

/**
 * `route`: the request's URL template as octokit gives it to a hook (`/repos/{owner}/{repo}/statuses/{sha}`),
 * `params`: its parameters. Null for a request that creates no content (reads, and the App's token requests).
 */
export function classifyWrite(method: string, route: string, params: Record<string, unknown>): WriteClassification | null {
  if (method === 'GET' || method === 'HEAD') return null;
  const path = route.replace(/^https?:\/\/[^/]+/, '').replace(/^\/api\/v3/, '');
  if (/^\/app\/installations\/[^/]+\/access_tokens$/.test(path) || path.startsWith('/applications/')) return null;
  const repo = /^\/repos\/[^/]+\/[^/]+(\/.*)?$/.exec(path)?.[1] ?? '';
  const at = `${params.owner}/${params.repo}`;
  if (repo === '/merges' || /^\/pulls\/[^/]+\/merge(-async)?$/.test(repo)) return { cls: 'queue', kind: 'merges', key: null };
  // A chain member's retarget goes right before the fast-forward that lands it.
  if (/^\/pulls\/[^/]+$/.test(repo) && method === 'PATCH') return { cls: 'queue', kind: 'pulls', key: null };
  if (repo.startsWith('/git/refs')) return { cls: method === 'DELETE' ? 'final' : 'queue', kind: 'refs', key: null };
  if (repo === '/pulls') return { cls: 'queue', kind: 'pulls', key: null };
  if (/^\/statuses\/[^/]+$/.test(repo)) {
    const key = `status ${at} ${params.sha} ${params.context}`;
    return { cls: params.state === 'pending' ? 'low' : 'final', kind: 'statuses', key };
  }
  if (/\/reactions$/.test(repo)) return { cls: 'ack', kind: 'reactions', key: null };
  if (/^\/issues\/comments\/[^/]+$/.test(repo) && method === 'PATCH') return { cls: 'comment', kind: 'comments', key: `comment ${at} ${params.comment_id}` };
  if (repo.startsWith('/issues/')) return { cls: 'comment', kind: 'comments', key: null };
  return { cls: 'final', kind: 'other', key: null };
}
