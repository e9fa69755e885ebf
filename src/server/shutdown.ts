import type { Logger } from 'pino';

export const SHUTDOWN_SIGNALS = ['SIGTERM', 'SIGINT'] as const;

/**
 * Resolves once the server has stopped after SIGTERM or SIGINT. The handlers are removed at the first
 * signal, so a second Ctrl-C falls back to Node's default and ends the process at once.
 */
export function stopOnSignals(server: { stop(): Promise<void> }, logger: Logger): Promise<void> {
  return new Promise((resolve, reject) => {
    const onSignal = (signal: NodeJS.Signals) => {
      for (const s of SHUTDOWN_SIGNALS) process.off(s, onSignal);
      logger.info({ signal }, 'shutting down: finishing requests and reconciles in flight');
      server.stop().then(resolve, reject);
    };
    for (const s of SHUTDOWN_SIGNALS) process.on(s, onSignal);
  });
}
