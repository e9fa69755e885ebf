import express, { Router, type NextFunction, type Request, type RequestHandler, type Response } from 'express';
import { z } from 'zod';
import { refNameProblem } from '../../domain/ref-name.js';
import type { RepoRef } from '../../domain/repo.js';
import type { SandboxGitHost } from './sandbox-host.js';
import type { SandboxPullRequest } from './repository.js';

const name = z.string().trim().min(1).max(200);
const repoSchema = z.object({ host: name, owner: name, name });
const prNumber = z.coerce.number().int().positive();
const branchName = name.refine((b) => refNameProblem(b) === null, { error: (iss) => refNameProblem(String(iss.input)) ?? 'invalid branch name' });

const openSchema = z.object({
  repo: repoSchema,
  title: z.string().max(500).optional(),
  author: name.optional(),
  baseBranch: branchName.optional(),
  headBranch: branchName.optional(),
  /** Stack the new PR on this open PR: based on its head branch (a plain chain). */
  stackOn: prNumber.optional(),
  bad: z.boolean().optional(),
  draft: z.boolean().optional(),
  ciMinutes: z.coerce.number().positive().max(10_080).optional(),
});
const repoBody = z.object({ repo: repoSchema });
const markSchema = z.object({ repo: repoSchema, bad: z.boolean() });
const attempt = z.enum(['passed', 'failed']);
const testsSchema = z.object({
  repo: repoSchema,
  steadyTests: z.number().int().min(0).max(1000),
  flakyTests: z
    .array(z.object({ name, rate: z.number().min(0).max(1), script: z.array(z.array(attempt).min(1).max(10)).max(100).optional() }))
    .max(50)
    .refine((ts) => new Set(ts.map((t) => t.name)).size === ts.length, { error: 'names must differ' }),
});
const conflictSchema = z.object({ repo: repoSchema, kind: z.enum(['textual', 'logical']), pulls: z.tuple([prNumber, prNumber]) });

/**
 * Routes to drive the sandbox git host by hand (mounted at `/sandbox`, only in sandbox mode): open a
 * PR, push to it, close it, mark it good or bad, make two PRs conflict, list PRs (with the comments
 * mergeq keeps on them), the draft PRs mergeq opened from its test branches
 * (`createPrsForTestingBranches`) and CI runs; give a repository tests (`/tests`), whose results its
 * CI then uploads for each run, as the CI wrapper would.
 */
export interface SandboxRoutesOptions {
  /** Throws (a 403 ServiceError) when the caller may not act on `repo`; every route asks it first. */
  authorize?: (res: Response, repo: RepoRef) => void;
  /** Reads POST bodies into `req.body`: the service passes the API's own reader (same limits and checks). */
  readBody?: RequestHandler;
}

export function sandboxRoutes(sandbox: SandboxGitHost, options: SandboxRoutesOptions = {}): Router {
  const router = Router();
  const authorize = options.authorize ?? (() => {});
  const readBody = options.readBody ?? express.json({ limit: '1mb' });
  router.post('/{*path}', readBody);

  router.post('/pulls', (req, res) => {
    const body = parse(openSchema, req.body, res);
    if (!body) return;
    const { repo, stackOn, ...input } = body;
    authorize(res, repo);
    if (stackOn !== undefined) {
      const below = sandbox.pullRequest(repo, stackOn);
      if (!below || below.state !== 'open') return problem(res, 400, 'invalid_request', `pull request #${stackOn} is not open in the sandbox`, [{ path: 'stackOn', message: 'no such open pull request' }]);
      input.baseBranch = below.headBranch;
    }
    send(res, sandbox, repo, sandbox.openPullRequest(repo, input));
  });

  router.get('/pulls', (req, res) => {
    const repo = parse(repoSchema, req.query, res);
    if (!repo) return;
    authorize(res, repo);
    res.json({ pulls: sandbox.listPullRequests(repo).map((pr) => view(sandbox, repo, pr)) });
  });

  router.get('/pulls/:number', (req, res) => {
    const repo = parse(repoSchema, req.query, res);
    if (!repo) return;
    authorize(res, repo);
    const n = parse(prNumber, req.params.number, res, 'number');
    if (!n) return;
    const pr = sandbox.pullRequest(repo, n);
    if (!pr) return notFound(res, n);
    send(res, sandbox, repo, pr);
  });

  router.post('/pulls/:number/commits', (req, res) => {
    withPull(req, res, repoBody, ({ repo }, n, pr) => {
      if (pr.state !== 'open') return problem(res, 409, 'invalid_state', `pull request #${n} is ${pr.state}`, [{ path: 'number', message: `is ${pr.state}` }]);
      send(res, sandbox, repo, sandbox.pushCommit(repo, n));
    });
  });

  router.post('/pulls/:number/close', (req, res) => {
    withPull(req, res, repoBody, ({ repo }, n, pr) => {
      if (pr.state === 'merged') return problem(res, 409, 'invalid_state', `pull request #${n} is merged`, [{ path: 'number', message: 'is merged' }]);
      send(res, sandbox, repo, pr.state === 'closed' ? pr : sandbox.closePullRequest(repo, n));
    });
  });

  router.post('/pulls/:number/mark', (req, res) => {
    withPull(req, res, markSchema, ({ repo, bad }, n) => send(res, sandbox, repo, sandbox.update(repo, n, { bad })));
  });

  router.post('/conflicts', (req, res) => {
    const body = parse(conflictSchema, req.body, res);
    if (!body) return;
    authorize(res, body.repo);
    const [a, b] = body.pulls;
    for (const n of [a, b]) if (!sandbox.pullRequest(body.repo, n)) return notFound(res, n);
    sandbox.addConflict(body.repo, body.kind, a, b);
    res.json({ kind: body.kind, pulls: [a, b] });
  });

  router.post('/tests', (req, res) => {
    const body = parse(testsSchema, req.body, res);
    if (!body) return;
    authorize(res, body.repo);
    const { repo, ...suite } = body;
    sandbox.ci.setTests(repo, suite);
    res.json(body);
  });

  router.get('/test-branch-pulls', (req, res) => {
    const repo = parse(repoSchema, req.query, res);
    if (!repo) return;
    authorize(res, repo);
    res.json({ pulls: sandbox.testBranchPullRequests(repo) });
  });

  router.get('/ci', (req, res) => {
    const repo = parse(repoSchema, req.query, res);
    if (!repo) return;
    authorize(res, repo);
    const key = `${repo.host}/${repo.owner}/${repo.name}`.toLowerCase();
    const runs = sandbox.ci.runs
      .filter((r) => `${r.repo.host}/${r.repo.owner}/${r.repo.name}`.toLowerCase() === key)
      .map((r) => ({ no: r.no, branch: r.branch, sha: r.sha, pulls: r.prNumbers, state: r.state, outcome: r.state === 'reported' ? r.outcome : null, minutes: r.minutes, startedAt: r.startedAt }));
    res.json({ runs });
  });

  // Bodies this router parsed itself: a broken one is the client's fault, never a 500.
  router.use((err: unknown, _req: Request, res: Response, next: NextFunction) => {
    const type = (err as { type?: unknown } | null)?.type;
    if (type === 'entity.parse.failed') return problem(res, 400, 'invalid_json', 'the body is not valid JSON', [{ path: '(body)', message: 'is not valid JSON' }]);
    if (type === 'entity.too.large') return problem(res, 413, 'payload_too_large', 'the body is too large', [{ path: '(body)', message: 'is too large' }]);
    next(err);
  });

  function withPull<T extends { repo: RepoRef }>(
    req: Request,
    res: Response,
    schema: z.ZodType<T>,
    fn: (body: T, n: number, pr: SandboxPullRequest) => void,
  ): void {
    const body = parse(schema, req.body, res);
    if (!body) return;
    authorize(res, body.repo);
    const n = parse(prNumber, req.params.number, res, 'number');
    if (!n) return;
    const pr = sandbox.pullRequest(body.repo, n);
    if (!pr) return notFound(res, n);
    fn(body, n, pr);
  }

  return router;
}

function view(sandbox: SandboxGitHost, repo: RepoRef, pr: SandboxPullRequest) {
  const r = sandbox.repository(repo);
  return {
    number: pr.number,
    title: pr.title,
    author: pr.author,
    baseBranch: pr.baseBranch,
    headBranch: pr.headBranch,
    headSha: pr.headSha,
    state: pr.state,
    draft: pr.draft,
    bad: pr.bad,
    ciMinutes: pr.ciMinutes,
    mergeability: pr.state === 'open' ? r.mergeability(pr) : 'UNSPECIFIED',
    mergeCommitSha: pr.mergeCommitSha,
    mergedAt: pr.mergedAt,
    comments: sandbox.pullRequestComments(repo, pr.number).map((c) => ({ body: c.body })),
  };
}

function send(res: Response, sandbox: SandboxGitHost, repo: RepoRef, pr: SandboxPullRequest): void {
  res.json(view(sandbox, repo, pr));
}

function parse<T>(schema: z.ZodType<T>, value: unknown, res: Response, path?: string): T | null {
  const result = schema.safeParse(value ?? {});
  if (result.success) return result.data;
  const errors = result.error.issues.map((i) => ({ path: [path, ...i.path.map(String)].filter(Boolean).join('.'), message: i.message }));
  problem(res, 400, 'invalid_request', 'the request is not valid', errors);
  return null;
}

function notFound(res: Response, n: number): void {
  problem(res, 404, 'pull_request_not_found', `pull request #${n} does not exist in the sandbox`, [{ path: 'number', message: 'no such pull request' }]);
}

function problem(res: Response, status: number, code: string, detail: string, errors?: { path: string; message: string }[]): void {
  const titles: Record<number, string> = { 400: 'Invalid request', 404: 'Not found', 409: 'Invalid state', 413: 'Payload too large' };
  res
    .status(status)
    .type('application/problem+json')
    .send(JSON.stringify({ type: 'about:blank', title: titles[status] ?? 'Error', status, code, detail, errors: errors ?? [] }));
}
