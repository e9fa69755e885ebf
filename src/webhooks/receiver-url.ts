import { MAX_URL_LENGTH } from '../domain/webhook-delivery.js';
import type { ReceiverNetworks } from './receiver-networks.js';
import { resolveReceiver, type Lookup } from './resolve-receiver.js';

const ALLOW_HINT = 'set MERGEQ_WEBHOOK_ALLOWED_NETWORKS to deliver inside your own network';

/**
 * Why a receiver URL is refused, or null: it must be https (http only to an allowed network), with
 * no credentials, and must not point inside the network (receiver-networks.ts): checked on the
 * addresses its name resolves to now. A name that does not resolve yet is accepted over https; every
 * delivery checks again.
 */
export async function receiverUrlProblem(value: string, networks: ReceiverNetworks, lookup?: Lookup): Promise<string | null> {
  if (value.length > MAX_URL_LENGTH) return `must be at most ${MAX_URL_LENGTH} characters`;
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return 'must be an absolute URL, e.g. https://example.com/hooks/mergeq';
  }
  if (url.username || url.password) return 'must not contain a user name or password';
  if (url.protocol !== 'https:' && url.protocol !== 'http:') return 'must be an https URL';
  const resolved = await resolveReceiver(url, networks, lookup);
  if (resolved.ok) return null;
  switch (resolved.refusal) {
    case 'private':
      return `must not point inside the network: ${url.hostname} is or resolves to a loopback, private, link-local or metadata address (${ALLOW_HINT})`;
    case 'http':
    case 'unresolved':
      if (url.protocol === 'http:') return `must be https (http only to a network allowed by MERGEQ_WEBHOOK_ALLOWED_NETWORKS)`;
      return null;
  }
}
