import { isIPv4, isIPv6 } from 'node:net';

/**
 * The network a node connects from: its IPv4 address's /24, or its IPv6 address's /64 (a household's or a host's
 * share of addresses), so that a check of a node's work never goes to a machine on the same network. Null for an
 * address it cannot read. (A prefix is a few lines of string work: no address library needed.)
 */
export function networkOrigin(ip: string | undefined): string | null {
  if (!ip) return null;
  const v4 = ip.startsWith('::ffff:') && isIPv4(ip.slice(7)) ? ip.slice(7) : ip;
  if (isIPv4(v4)) return `${v4.split('.').slice(0, 3).join('.')}.0/24`;
  if (!isIPv6(ip)) return null;
  const [head, tail = ''] = ip.split('%')[0]!.split('::');
  const left = head ? head.split(':') : [];
  const right = ip.includes('::') && tail ? tail.split(':') : [];
  const groups = [...left, ...Array(8 - left.length - right.length).fill('0'), ...right];
  return `${groups
    .slice(0, 4)
    .map((g) => parseInt(g, 16).toString(16))
    .join(':')}::/64`;
}
