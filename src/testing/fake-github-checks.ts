import type { FakeCheckRun, Reply } from './fake-github-types.js';

/** The check runs mergeq creates on commits (`POST /check-runs`), as the fake GitHub keeps them. */
export class FakeChecks {
  /** Check runs mergeq created, oldest first. */
  readonly runs: FakeCheckRun[] = [];
  /** Whether the App may create check runs (`checks: write`): else GitHub answers 403 "Resource not accessible by integration". */
  writable = true;

  constructor(private readonly nextId: () => number) {}

  /** The answer to `route` (`METHOD /path` below the repository) when it is a check run to create, else null. */
  route(route: string, body: Record<string, unknown>): Reply | null {
    if (route !== 'POST /check-runs') return null;
    if (!this.writable) return [403, { message: 'Resource not accessible by integration', documentation_url: 'https://docs.github.com/rest/checks/runs#create-a-check-run' }];
    const output = (body.output ?? {}) as Partial<FakeCheckRun['output']>;
    const run: FakeCheckRun = {
      name: String(body.name),
      headSha: String(body.head_sha),
      status: String(body.status ?? 'queued'),
      conclusion: (body.conclusion as string | undefined) ?? null,
      output: { title: output.title ?? '', summary: output.summary ?? '', annotations: output.annotations ?? [] },
    };
    this.runs.push(run);
    return [201, { id: this.nextId(), name: run.name, head_sha: run.headSha, status: run.status, conclusion: run.conclusion }];
  }
}
