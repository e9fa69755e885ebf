import type { Logger } from 'pino';
import type { QueueDoc } from '../domain/queue.js';

/** One log line per pull request whose state a commit changed. */
export function logTransitions(logger: Logger, prev: QueueDoc, next: QueueDoc): void {
  if (!logger.isLevelEnabled('info')) return;
  const before = new Map(prev.entries.map((e) => [e.id, e.state]));
  for (const entry of next.entries) {
    const from = before.get(entry.id);
    if (from === entry.state) continue;
    logger.info(
      { queueId: next.id, repo: next.repoKey, branch: next.branch, pr: entry.prNumber, from: from ?? null, to: entry.state, reason: entry.reason?.code },
      'pull request state changed',
    );
  }
}
