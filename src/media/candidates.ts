/**
 * Which remote ICE candidates may reach Janus (issue 28 point 11). Janus
 * sends STUN connectivity checks to every candidate a participant names, so a candidate is a
 * way to make the server send packets to an address she chose: loopback, link-local or the
 * server's own LAN. Pure functions, no dependencies (media/ imports no package).
 *
 * A candidate passes only when its address is an IP literal in canonical form that is not
 * - unspecified, loopback, link-local, multicast or reserved (0.0.0.0/8, 127.0.0.0/8,
 *   169.254.0.0/16, 224.0.0.0/3; ::, ::1, fe80::/10, ff00::/8, IPv4-compatible ::/96): never;
 * - private (10/8, 172.16/12, 192.168/16, the carrier-grade NAT range 100.64/10, unique-local
 *   fc00::/7, the old site-local fec0::/10): unless the operator allows private peers
 *   (SERVICE_MEDIA_PRIVATE_PEERS, for a school whose pupils reach the server over its LAN).
 * IPv4-mapped (::ffff:0:0/96) and NAT64 (64:ff9b::/96) addresses are judged by the IPv4 address
 * they carry. Names (mDNS `.local` names of browsers that hide their address, or any other) are
 * dropped: Janus would resolve them itself, to an address nobody checked. Dropping a candidate
 * does not cut a peer off: Janus still answers her own checks and learns her address from them
 * (a peer-reflexive candidate), so only the server's unsolicited checks are withheld.
 */
export interface PeerAddressPolicy {
  /** Candidates on private ranges (RFC 1918, CGNAT, ULA) may reach Janus. */
  readonly privatePeers: boolean;
}

type Verdict = 'public' | 'private' | 'never';

function ipv4Octets(text: string): number[] | null {
  const parts = text.split('.');
  if (parts.length !== 4 || !parts.every((p) => /^(0|[1-9]\d{0,2})$/.test(p))) return null;
  const octets = parts.map(Number);
  return octets.every((o) => o <= 255) ? octets : null;
}

function judgeIpv4([a = 0, b = 0]: readonly number[]): Verdict {
  if (a === 0 || a === 127 || (a === 169 && b === 254) || a >= 224) return 'never';
  if (a === 10 || (a === 172 && b >= 16 && b <= 31) || (a === 192 && b === 168) || (a === 100 && b >= 64 && b <= 127)) return 'private';
  return 'public';
}

/** The eight 16-bit groups of an IPv6 literal (a zone `%eth0` allowed), or null. */
function ipv6Groups(text: string): number[] | null {
  const bare = text.replace(/%[\w.-]+$/, '');
  let tail: number[] = [];
  let head = bare;
  const v4 = /(^|:)(\d+\.\d+\.\d+\.\d+)$/.exec(bare);
  if (v4) {
    const octets = ipv4Octets(v4[2] ?? '');
    if (!octets) return null;
    tail = [((octets[0] ?? 0) << 8) | (octets[1] ?? 0), ((octets[2] ?? 0) << 8) | (octets[3] ?? 0)];
    head = bare.slice(0, bare.length - (v4[2] ?? '').length);
    if (head.endsWith(':') && !head.endsWith('::')) head = head.slice(0, -1);
  }
  const halves = head.split('::');
  if (halves.length > 2) return null;
  const groups = (part: string) => (part === '' ? [] : part.split(':'));
  const left = groups(halves[0] ?? '');
  const right = halves.length === 2 ? groups(halves[1] ?? '') : [];
  if (![...left, ...right].every((g) => /^[0-9a-f]{1,4}$/i.test(g))) return null;
  const known = left.length + right.length + tail.length;
  if (halves.length === 1 ? known !== 8 : known > 7) return null;
  const fill = new Array<string>(8 - known).fill('0');
  return [...left, ...(halves.length === 2 ? fill : []), ...right].map((g) => parseInt(g, 16)).concat(tail);
}

function judgeIpv6(g: readonly number[]): Verdict {
  const [g0 = 0, g1 = 0, g2 = 0, g3 = 0, g4 = 0, g5 = 0, g6 = 0, g7 = 0] = g;
  const carried = [g6 >> 8, g6 & 0xff, g7 >> 8, g7 & 0xff];
  const zeroTo = (n: number) => g.slice(0, n).every((x) => x === 0);
  if (zeroTo(5) && g5 === 0xffff) return judgeIpv4(carried);
  if (g0 === 0x64 && g1 === 0xff9b && g2 === 0 && g3 === 0 && g4 === 0 && g5 === 0) return judgeIpv4(carried);
  if (zeroTo(6)) return 'never';
  if ((g0 & 0xffc0) === 0xfe80 || (g0 & 0xff00) === 0xff00) return 'never';
  if ((g0 & 0xfe00) === 0xfc00 || (g0 & 0xffc0) === 0xfec0) return 'private';
  return 'public';
}

/** Whether Janus may be given this address (an IP literal; a name never passes). */
export function peerAddressAllowed(address: string, policy: PeerAddressPolicy): boolean {
  const v4 = ipv4Octets(address);
  const groups = v4 ? null : ipv6Groups(address.replace(/^\[(.*)\]$/, '$1'));
  const verdict: Verdict = v4 ? judgeIpv4(v4) : groups ? judgeIpv6(groups) : 'never';
  return verdict === 'public' || (verdict === 'private' && policy.privatePeers);
}

/**
 * Whether a candidate (`candidate:foundation component transport priority address port typ ...`,
 * with or without `a=`) may reach Janus. The empty candidate (end of candidates) passes; an
 * unreadable one does not.
 */
export function candidateAllowed(candidate: string, policy: PeerAddressPolicy): boolean {
  const text = candidate.trim().replace(/^a=/, '');
  if (text === '') return true;
  const fields = text.split(/\s+/);
  if (!/^candidate:/i.test(fields[0] ?? '') || fields.length < 8) return false;
  return peerAddressAllowed(fields[4] ?? '', policy);
}

/** The description without the `a=candidate` lines Janus may not be given; every other line as it was. */
export function withoutRefusedCandidates(sdp: string, policy: PeerAddressPolicy): string {
  return sdp
    .split(/(?<=\n)/)
    .filter((line) => !/^a=candidate:/i.test(line) || candidateAllowed(line.replace(/\r?\n$/, ''), policy))
    .join('');
}
