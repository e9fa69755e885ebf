import type { Logger } from 'pino';
import { ownerKey } from '../domain/repo.js';
import type { SandboxGitHost } from '../githost/sandbox/sandbox-host.js';
import type { FlakyTestService } from '../service/flaky/flaky-test-service.js';
import type { Store } from '../store/store.js';

/**
 * The sandbox CI uploads each run's test results through the same operation as the CLI's
 * `mergeq test` (FlakyTestService.upload), on behalf of the organization owning the repository.
 * Returns the unsubscribe function.
 */
export function uploadSandboxTestResults(
  sandbox: SandboxGitHost,
  flakyTests: FlakyTestService,
  store: Store,
  logger: Logger,
  /** Told each upload under way and its commit (a test on virtual time waits for them before moving the clock on). */
  track: (upload: Promise<void>, sha: string) => void = () => undefined,
): () => void {
  return sandbox.onTestResults((event) => {
    track((async () => {
      const org = await store.orgs.findOrgByOwner(ownerKey(event.repo.host, event.repo.owner));
      if (!org) return;
      await flakyTests.upload(org, { repo: event.repo, commitSha: event.sha, branch: event.branch, jobName: 'sandbox-ci', junitXml: [event.junitXml] });
    })().catch((err: unknown) => logger.error({ err, sha: event.sha }, 'uploading sandbox test results failed')), event.sha);
  });
}
