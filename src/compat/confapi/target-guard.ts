import { lookup as dnsLookup } from 'node:dns/promises';
import { BlockList, isIP } from 'node:net';

/**
 * Outbound callbacks go to URLs a caller chose (create metadata), so they must not reach
 * the service's own network: every address a name resolves to is checked, the connection is
 * then pinned to a checked address (no second resolution an attacker could answer
 * differently), and loopback, private, link-local, shared, documentation, multicast and
 * reserved ranges are refused unless the operator allow-listed the target
 * (COMPAT_CALLBACK_ALLOW: host, host:port, an IP address or a CIDR block).
 */
export class TargetRefused extends Error {
  override readonly name = 'TargetRefused';
}

export interface ResolvedTarget {
  readonly address: string;
  readonly family: 4 | 6;
}

export type Resolver = (hostname: string) => Promise<{ address: string; family: number }[]>;

const systemResolver: Resolver = (hostname) => dnsLookup(hostname, { all: true, verbatim: true });

const deniedV4: readonly [string, number][] = [
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['100.64.0.0', 10],
  ['127.0.0.0', 8],
  ['169.254.0.0', 16],
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.0.2.0', 24],
  ['192.88.99.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['198.51.100.0', 24],
  ['203.0.113.0', 24],
  ['224.0.0.0', 4],
  ['240.0.0.0', 4],
];

/**
 * IPv6 ranges refused whole. Three of them embed an IPv4 address yet are refused whatever it
 * is: IPv4-compatible `::/96` (deprecated by RFC 4291; `::` and `::1` are inside it),
 * IPv4-translated `::ffff:0:0:0/96` (SIIT, obsolete) and 6to4 `2002::/16` (deprecated by RFC
 * 7526): no legitimate callback target uses them, and a stack that still routes one would
 * reach the embedded address. NAT64's local-use `64:ff9b:1::/48` puts the IPv4 address at an
 * offset the operator chose, so it cannot be read back and is refused whole too.
 */
const deniedV6: readonly [string, number][] = [
  ['::', 96],
  ['::ffff:0:0:0', 96],
  ['64:ff9b:1::', 48],
  ['100::', 64],
  ['2001::', 23],
  ['2001:db8::', 32],
  ['2002::', 16],
  ['fc00::', 7],
  ['fe80::', 10],
  ['fec0::', 10],
  ['ff00::', 8],
];

/**
 * /96 prefixes whose last 32 bits are the IPv4 address a connection really reaches:
 * IPv4-mapped (a dual-stack socket connects to the IPv4 address) and NAT64's well-known
 * prefix (the translator does). Each IPv4 rule is repeated under them, so the IPv4 rules
 * decide, in every spelling BlockList parses (`::ffff:7f00:1`, `0:0:0:0:0:ffff:127.0.0.1`, …).
 */
const v4Carriers = ['::ffff:', '64:ff9b::'];

const denied = new BlockList();
for (const [net, prefix] of deniedV4) {
  denied.addSubnet(net, prefix, 'ipv4');
  for (const carrier of v4Carriers) denied.addSubnet(`${carrier}${net}`, 96 + prefix, 'ipv6');
}
for (const [net, prefix] of deniedV6) denied.addSubnet(net, prefix, 'ipv6');

/** Whether an address is one a callback must not reach (without an allow-list entry). */
export function isInternalAddress(address: string): boolean {
  const family = isIP(address);
  if (family === 4) return denied.check(address, 'ipv4');
  if (family === 6) return denied.check(address, 'ipv6');
  return true;
}

export class TargetGuard {
  private readonly hosts = new Set<string>();
  private readonly hostPorts = new Set<string>();
  private readonly allowedNets = new BlockList();

  constructor(
    allow: readonly string[],
    private readonly resolver: Resolver = systemResolver,
  ) {
    for (const raw of allow) {
      const entry = raw.trim().toLowerCase();
      const cidr = /^([^/]+)\/(\d{1,3})$/.exec(entry);
      const bare = entry.replace(/^\[(.*)\]$/, '$1');
      if (cidr && isIP(cidr[1]!) !== 0) {
        this.allowedNets.addSubnet(cidr[1]!, Number(cidr[2]), isIP(cidr[1]!) === 4 ? 'ipv4' : 'ipv6');
      } else if (isIP(bare) !== 0) {
        this.allowedNets.addAddress(bare, isIP(bare) === 4 ? 'ipv4' : 'ipv6');
        this.hosts.add(bare);
      } else if (/:\d+$/.test(entry)) {
        this.hostPorts.add(entry);
      } else {
        this.hosts.add(entry);
      }
    }
  }

  private hostAllowed(url: URL): boolean {
    const hostname = url.hostname.toLowerCase().replace(/^\[(.*)\]$/, '$1');
    const port = url.port || (url.protocol === 'https:' ? '443' : '80');
    const hostForPort = url.hostname.toLowerCase();
    return (
      this.hosts.has(hostname) ||
      this.hostPorts.has(`${hostForPort}:${port}`) ||
      this.hostPorts.has(`${hostname}:${port}`)
    );
  }

  private addressAllowed(address: string, family: 4 | 6): boolean {
    return this.allowedNets.check(address, family === 4 ? 'ipv4' : 'ipv6');
  }

  /**
   * The address to connect to for `url`, or TargetRefused: not http(s), credentials in the
   * URL, a name that does not resolve, or any resolved address internal and not allowed.
   */
  async resolve(url: URL): Promise<ResolvedTarget> {
    if (url.protocol !== 'http:' && url.protocol !== 'https:')
      throw new TargetRefused(`scheme ${url.protocol} is not allowed`);
    if (url.username !== '' || url.password !== '') throw new TargetRefused('credentials in the URL are not allowed');
    const hostname = url.hostname.replace(/^\[(.*)\]$/, '$1');
    const literal = isIP(hostname);
    let addresses: { address: string; family: number }[];
    if (literal !== 0) {
      addresses = [{ address: hostname, family: literal }];
    } else {
      try {
        addresses = await this.resolver(hostname);
      } catch (err) {
        throw new TargetRefused(`${hostname} does not resolve (${(err as NodeJS.ErrnoException).code ?? 'error'})`);
      }
      if (addresses.length === 0) throw new TargetRefused(`${hostname} does not resolve`);
    }
    const byName = this.hostAllowed(url);
    for (const { address, family } of addresses) {
      const fam = family === 6 ? 6 : 4;
      if (isInternalAddress(address) && !byName && !this.addressAllowed(address, fam)) {
        throw new TargetRefused(`${hostname} resolves to ${address}, an internal address not in COMPAT_CALLBACK_ALLOW`);
      }
    }
    const first = addresses[0]!;
    return { address: first.address, family: first.family === 6 ? 6 : 4 };
  }
}
