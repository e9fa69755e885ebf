import { lookup as dnsLookup } from 'node:dns/promises';
import { isIP } from 'node:net';
import { isMetadataName, type ReceiverNetworks } from './receiver-networks.js';

export type ResolvedReceiver =
  | { ok: true; address: string; family: 4 | 6 }
  /** `private`: inside the network; `http`: plain http outside the allowed networks; `unresolved`: no address. */
  | { ok: false; refusal: 'private' | 'http' | 'unresolved' };

export type Lookup = (hostname: string) => Promise<{ address: string; family: number }[]>;

const systemLookup: Lookup = (hostname) => dnsLookup(hostname, { all: true, verbatim: true });

/**
 * The address to connect to for a receiver URL, checked: every address the name resolves to must be
 * allowed (a name with one private address among public ones is refused), and the caller connects to
 * the returned address itself, so a name that resolves differently a moment later (DNS rebinding)
 * changes nothing.
 */
export async function resolveReceiver(url: URL, networks: ReceiverNetworks, lookup: Lookup = systemLookup): Promise<ResolvedReceiver> {
  const host = url.hostname.replace(/^\[|\]$/g, '');
  if (isMetadataName(host)) return { ok: false, refusal: 'private' };
  let addresses: { address: string; family: number }[];
  if (isIP(host)) {
    addresses = [{ address: host, family: isIP(host) }];
  } else {
    try {
      addresses = await lookup(host);
    } catch {
      return { ok: false, refusal: 'unresolved' };
    }
  }
  const first = addresses[0];
  if (!first) return { ok: false, refusal: 'unresolved' };
  if (!addresses.every((a) => networks.allows(a.address))) return { ok: false, refusal: 'private' };
  if (url.protocol === 'http:' && !addresses.every((a) => networks.allowsHttp(a.address))) return { ok: false, refusal: 'http' };
  return { ok: true, address: first.address, family: first.family === 6 ? 6 : 4 };
}
