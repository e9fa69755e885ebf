import { createHash, randomUUID } from 'node:crypto';
import { submitEntry } from '../planner/index.js';
import type { GitHost } from '../githost/githost.js';
import { readPullRequestFacts } from '../service/queue/pull-request-facts.js';
import type { Store } from '../store/store.js';

/**
 * Enqueues PRs 1..count in an existing queue with the domain's own submit command, committed in one
 * write. Submitting them one by one through the service costs O(n²) (each submit rewrites the whole
 * queue document: about 15 s for 1,000), which would not fit the benchmark's time budget.
 * Entries carry a title, head SHA and author of realistic size, as PRs from a git host would.
 */
export async function seedQueue(deps: { store: Store; gitHost: GitHost }, repoKey: string, branch: string, count: number): Promise<void> {
  const current = await deps.store.queues.getQueue(repoKey, branch);
  if (!current) throw new Error(`no queue ${repoKey} ${branch} to seed`);
  const now = new Date();
  let queue = current;
  for (let prNumber = 1; prNumber <= count; prNumber++) {
    const facts = await readPullRequestFacts(deps, queue, prNumber);
    queue = submitEntry(
      queue,
      {
        ...facts,
        entryId: randomUUID(),
        prNumber,
        prTitle: `Bench change #${prNumber}: tighten the widget pipeline retries`,
        prSha: createHash('sha1').update(String(prNumber)).digest('hex'),
        prBaseBranch: branch,
        prAuthor: `developer-${prNumber % 50}`,
        priority: null,
        noBatch: null,
      },
      now,
    ).queue;
  }
  if (!(await deps.store.queues.commitQueue({ ...queue, version: current.version + 1 }, current.version))) {
    throw new Error(`queue ${repoKey} ${branch} changed while it was being seeded`);
  }
}
