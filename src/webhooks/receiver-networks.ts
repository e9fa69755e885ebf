import ipaddr from 'ipaddr.js';

type Network = [ipaddr.IPv4 | ipaddr.IPv6, number];

/** Cloud metadata services by name: refused whatever they resolve to, allowed networks or not. */
const METADATA_NAMES: ReadonlySet<string> = new Set(['metadata.google.internal', 'metadata.goog', 'metadata', 'instance-data', 'instance-data.ec2.internal']);

/**
 * Where outbound webhooks may go. Only public unicast addresses by default: loopback, private
 * (10/8, 172.16/12, 192.168/16), CGNAT (100.64/10), link-local (169.254/16, fe80::/10, where cloud
 * metadata answers), unique-local (fc00::/7), unspecified, multicast and reserved ranges are refused,
 * IPv4-mapped IPv6 as the IPv4 address it maps. `allowed` (MERGEQ_WEBHOOK_ALLOWED_NETWORKS) opens
 * networks of a self-hosted install's own; plain http goes only to those.
 */
export class ReceiverNetworks {
  private readonly allowed: Network[];

  constructor(allowed: readonly string[] = []) {
    this.allowed = allowed.map((text) => parseNetwork(text));
  }

  /** True when a receiver may be reached at `address` (an IP address as DNS returns it). */
  allows(address: string): boolean {
    if (!ipaddr.isValid(address)) return false;
    const ip = ipaddr.process(address);
    return this.inAllowedNetwork(ip) || ip.range() === 'unicast';
  }

  /** True when `address` is in one of the allowed networks (where plain http may go). */
  allowsHttp(address: string): boolean {
    return ipaddr.isValid(address) && this.inAllowedNetwork(ipaddr.process(address));
  }

  private inAllowedNetwork(ip: ipaddr.IPv4 | ipaddr.IPv6): boolean {
    return this.allowed.some(([network, bits]) => network.kind() === ip.kind() && ip.match(network, bits));
  }
}

/** A metadata service's name (case and a trailing dot aside). */
export function isMetadataName(hostname: string): boolean {
  return METADATA_NAMES.has(hostname.toLowerCase().replace(/\.$/, ''));
}

/** `10.0.0.0/8`, `fd00::/8`, or one address (a /32 or /128). Throws on anything else. */
function parseNetwork(text: string): Network {
  const trimmed = text.trim();
  if (ipaddr.isValidCIDR(trimmed)) {
    const [network, bits] = ipaddr.parseCIDR(trimmed);
    return network.kind() === 'ipv6' && (network as ipaddr.IPv6).isIPv4MappedAddress() && bits >= 96
      ? [(network as ipaddr.IPv6).toIPv4Address(), bits - 96]
      : [network, bits];
  }
  if (ipaddr.isValid(trimmed)) {
    const ip = ipaddr.process(trimmed);
    return [ip, ip.kind() === 'ipv4' ? 32 : 128];
  }
  throw new Error(`${JSON.stringify(trimmed)} is not a network (e.g. 10.0.0.0/8 or fd00::/8)`);
}

/** Why a comma-separated list of networks is not one, or null (for the environment's validation). */
export function networkListProblem(list: string): string | null {
  for (const item of list.split(',')) {
    if (item.trim() === '') continue;
    try {
      parseNetwork(item);
    } catch {
      return `must be comma-separated networks such as 10.0.0.0/8,fd00::/8 ("${item.trim().slice(0, 60)}" is not one)`;
    }
  }
  return null;
}

/** The networks of a comma-separated list (empty items ignored). */
export function networkList(list: string | undefined): string[] {
  return (list ?? '').split(',').map((s) => s.trim()).filter((s) => s !== '');
}
