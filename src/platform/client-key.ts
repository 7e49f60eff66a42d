import { isIPv6 } from 'node:net';

const ipv4Mapped = /^::ffff:(\d{1,3}(?:\.\d{1,3}){3})$/i;

/**
 * Who a request comes from, for per-client limits: its address as the trusted proxy reports
 * it (Fastify's request.ip). An IPv4 address is one client; an IPv6 host usually owns a whole
 * /64, so rotating the low bits must not make a new client; an IPv4-mapped address is its IPv4.
 */
export function clientKey(ip: string): string {
  if (!isIPv6(ip)) return ip;
  const mapped = ipv4Mapped.exec(ip);
  if (mapped) return mapped[1]!;
  return `${expandIPv6(ip).slice(0, 4).join(':')}::/64`;
}

/**
 * The network an IPv6 client belongs to, its /56: what an ISP gives a home or a small site (RIPE-690),
 * so one customer's 256 /64s are counted together as well; null for IPv4 (an address is all it has).
 */
export function clientNetwork(ip: string): string | null {
  if (!isIPv6(ip) || ipv4Mapped.test(ip)) return null;
  const groups = expandIPv6(ip);
  const fourth = (parseInt(groups[3]!, 16) & 0xff00).toString(16);
  return `${[...groups.slice(0, 3), fourth].join(':')}::/56`;
}

/** The eight 16-bit groups of an IPv6 address, as lowercase hex without leading zeros. */
function expandIPv6(ip: string): string[] {
  const bare = ip.split('%')[0]!;
  const [head = '', tail] = bare.split('::') as [string, string | undefined];
  const part = (s: string) => (s === '' ? [] : s.split(':'));
  const lastToHex = (groups: string[]) => {
    const last = groups.at(-1);
    if (last?.includes('.')) {
      const [a, b, c, d] = last.split('.').map(Number) as [number, number, number, number];
      groups.splice(-1, 1, ((a << 8) | b).toString(16), ((c << 8) | d).toString(16));
    }
    return groups;
  };
  const left = part(head);
  const right = lastToHex(part(tail ?? ''));
  const groups =
    tail === undefined
      ? lastToHex(left)
      : [...left, ...Array<string>(8 - left.length - right.length).fill('0'), ...right];
  return groups.map((g) => parseInt(g, 16).toString(16));
}
