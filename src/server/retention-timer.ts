import type { Logger } from 'pino';
import type { Clock } from '../domain/clock.js';
import type { RetentionService } from '../service/retention-service.js';

export const RETENTION_EVERY_MS = 60 * 60 * 1000;

/** Prunes at start-up and then every hour; returns a function that stops it and awaits a prune in flight. */
export function startRetention(retention: RetentionService, clock: Clock, logger: Logger, everyMs = RETENTION_EVERY_MS): () => Promise<void> {
  let running: Promise<void> = Promise.resolve();
  const prune = () => {
    running = retention.prune(clock.now()).then(
      (pruned) => {
        if (pruned.targetLists + pruned.entries + pruned.runs > 0) logger.info(pruned, 'retention: old data deleted');
      },
      (err: unknown) => logger.warn({ err }, 'retention: pruning failed; will retry'),
    );
  };
  prune();
  const timer = setInterval(prune, everyMs);
  timer.unref();
  return async () => {
    clearInterval(timer);
    await running;
  };
}
