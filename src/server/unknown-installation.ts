import type { InboundDelivery } from '../service/github/webhook-inbox.js';

/**
 * Why a delivery cannot be handled however often it is tried, or null: GitHub answered 404 to the
 * installation token request, so the installation the payload names is not one of this App's (it was
 * uninstalled, or the delivery was meant for another App). Such a delivery is ignored, not retried.
 */
export function unknownInstallation(err: unknown, delivery: InboundDelivery): string | null {
  if (!causes(err).some(isInstallationTokenNotFound)) return null;
  const id = (delivery.payload as { installation?: { id?: unknown } }).installation?.id;
  return `installation ${typeof id === 'number' ? id : '(none)'} is not known to this GitHub App (uninstalled, or the delivery is another App's)`;
}

function isInstallationTokenNotFound(err: unknown): boolean {
  const e = err as { status?: unknown; request?: { url?: unknown } } | null;
  return e?.status === 404 && typeof e.request?.url === 'string' && /\/app\/installations\/[^/]+\/access_tokens/.test(e.request.url);
}

/** The error, the errors it aggregates (probot runs several handlers) and their causes. */
function causes(err: unknown, depth = 0): unknown[] {
  if (err === null || typeof err !== 'object' || depth > 4) return [];
  const e = err as { errors?: unknown; cause?: unknown };
  const nested = [...(Array.isArray(e.errors) ? e.errors : []), ...(e.cause !== undefined ? [e.cause] : [])];
  return [err, ...nested.flatMap((n) => causes(n, depth + 1))];
}
