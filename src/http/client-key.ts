import { isIPv6 } from 'node:net';

/**
 * Who a request comes from, for per-client limits: its address as the trusted proxy reports
 * it (Fastify's request.ip). An IPv4 address is one client; an IPv6 host usually owns a whole
 * /64, so rotating the low bits must not make a new client; an IPv4-mapped address is its IPv4.
 */
export function clientKey(ip: string): string {
  if (!isIPv6(ip)) return ip;
  const mapped = /^::ffff:(\d{1,3}(?:\.\d{1,3}){3})$/i.exec(ip);
  if (mapped) return mapped[1]!;
  return `${expandIPv6(ip).slice(0, 4).join(':')}::/64`;
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
  const groups = tail === undefined ? lastToHex(left) : [...left, ...Array<string>(8 - left.length - right.length).fill('0'), ...right];
  return groups.map((g) => parseInt(g, 16).toString(16));
}
