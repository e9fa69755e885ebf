import type { Logger } from 'pino';

/**
 * Subscribes to a webhook proxy channel (smee.io, or any server speaking its server-sent events) and
 * POSTs each event to the service's own webhook endpoint, as probot apps do with WEBHOOK_PROXY_URL:
 * GitHub delivers to the channel, which a laptop can reach. The endpoint still checks each
 * delivery's signature. A channel that cannot be reached is logged, not fatal: the client retries.
 */
export async function startWebhookProxy(source: string, target: string, logger: Logger): Promise<{ stop(): Promise<void> }> {
  // Loaded only when asked for: it brings undici along.
  const { SmeeClient } = await import('smee-client');
  const log = logger.child({ component: 'webhook-proxy' });
  const client = new SmeeClient({
    source,
    target,
    logger: {
      info: (...args: unknown[]) => log.debug(args.map(String).join(' ')),
      error: (...args: unknown[]) => log.warn(args.map((a) => (a instanceof Error ? a.message : String(a))).join(' ')),
    },
  });
  void client.start().then(
    () => log.info({ source, target }, `forwarding webhooks from ${source} to ${target}`),
    (err: unknown) => log.warn({ source }, `webhook proxy ${source} not reachable yet (${err instanceof Error ? err.message : 'connection failed'}); retrying`),
  );
  // Not waiting for the first connection: a channel that never answers must not hold a shutdown up.
  return { stop: () => client.stop() };
}

/** The service's webhook endpoint as seen from this host: a wildcard listening address becomes the loopback. */
export function localWebhookUrl(host: string, port: number): string {
  const local = host === '0.0.0.0' ? '127.0.0.1' : host === '::' ? '::1' : host;
  return `http://${local.includes(':') ? `[${local}]` : local}:${port}/api/github/webhooks`;
}
