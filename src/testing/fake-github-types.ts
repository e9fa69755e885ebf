/** The shapes the fake GitHub keeps and answers, and how it counts writes. */

/** A PR as the fake keeps it; `head` is the commit of its head. */
export interface FakePull {
  number: number;
  title: string;
  author: string;
  head: string;
  base: string;
  state: 'open' | 'closed';
  merged: boolean;
  mergeCommitSha: string | null;
  draft: boolean;
  /** Branch protection wants a review it does not have yet (`mergeable_state: blocked`). */
  awaitsReview: boolean;
  /** Reviews as GET …/reviews lists them (`APPROVED`, `CHANGES_REQUESTED`, `DISMISSED`), oldest first. */
  reviews: { user: string; state: string }[];
  /** Label names, as `pull_request` payloads list them. */
  labels: string[];
  /** The head branch; absent: `feature-<number>`. */
  headRef?: string;
}

/** A draft PR mergeq opened from a test branch (createPrsForTestingBranches); `head` is the branch. */
export interface FakeTestBranchPull {
  number: number;
  title: string;
  body: string;
  head: string;
  base: string;
  draft: boolean;
  state: 'open' | 'closed';
}

export interface FakeStatus {
  context: string;
  state: string;
  target_url: string | null;
  description: string;
}

/** A comment on a PR; `edits` counts the times its body was replaced. */
export interface FakeComment {
  id: number;
  issue: number;
  body: string;
  edits: number;
}

/** A check run mergeq created on a commit (`POST /check-runs`). */
export interface FakeCheckRun {
  name: string;
  headSha: string;
  status: string;
  conclusion: string | null;
  output: { title: string; summary: string; annotations: { path: string; start_line: number; end_line: number; annotation_level: string; message: string }[] };
}

/** Status, JSON body, headers. */
export type Reply = [number, unknown?, Record<string, string>?];

/** What kind of write a request is, for counting GitHub writes per merged PR. */
export type WriteKind = 'merges' | 'refs' | 'statuses' | 'comments' | 'reactions' | 'pulls';

export function writeKind(method: string, route: string): WriteKind | null {
  if (method === 'GET' || method === 'HEAD') return null;
  if (route === '/merges' || /^\/pulls\/\d+\/merge$/.test(route)) return 'merges';
  if (route.startsWith('/git/refs')) return 'refs';
  if (route.startsWith('/statuses/')) return 'statuses';
  if (/\/reactions$/.test(route)) return 'reactions';
  if (route.startsWith('/issues/')) return 'comments';
  if (route === '/pulls' || /^\/pulls\/\d+$/.test(route)) return 'pulls';
  if (/^\/pulls\/\d+\/merge-async$/.test(route)) return 'merges';
  return null;
}

/** A page of an issue's comments, oldest first, with GitHub's `link` header to the next page (`repoUrl`: the repository's API URL). */
export function commentsPage(comments: readonly FakeComment[], issue: number, uri: string, repoUrl: string): Reply {
  const query = new URLSearchParams(uri.split('?')[1] ?? '');
  const perPage = Number(query.get('per_page') ?? 30);
  const page = Number(query.get('page') ?? 1);
  const all = comments.filter((c) => c.issue === issue);
  const data = all.slice((page - 1) * perPage, page * perPage).map((c) => ({ id: c.id, body: c.body, user: { login: 'mergeq[bot]', type: 'Bot' } }));
  if (page * perPage >= all.length) return [200, data];
  return [200, data, { link: `<${repoUrl}/issues/${issue}/comments?per_page=${perPage}&page=${page + 1}>; rel="next"` }];
}
