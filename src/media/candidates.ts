/**
 * Which remote ICE candidates may reach Janus (issue 28 point 11). Janus
 * sends STUN connectivity checks to every candidate a participant names, so a candidate is a
 * way to make the server send packets to an address she chose: loopback, link-local or the
 * server's own LAN. Pure functions; the address ranges are node's BlockList, as the callbacks' guard's are.
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
import { BlockList, isIP } from 'node:net';

export interface PeerAddressPolicy {
  /** Candidates on private ranges (RFC 1918, CGNAT, ULA) may reach Janus. */
  readonly privatePeers: boolean;
}

/** Never given to Janus, whatever the policy: 0/8, loopback, link-local, multicast and reserved. */
const neverV4: readonly [string, number][] = [
  ['0.0.0.0', 8],
  ['127.0.0.0', 8],
  ['169.254.0.0', 16],
  ['224.0.0.0', 3],
];
/** Private ranges: RFC 1918 and carrier-grade NAT. */
const privateV4: readonly [string, number][] = [
  ['10.0.0.0', 8],
  ['172.16.0.0', 12],
  ['192.168.0.0', 16],
  ['100.64.0.0', 10],
];
/** IPv4-compatible ::/96 (which holds :: and ::1), link-local, multicast. */
const neverV6: readonly [string, number][] = [
  ['::', 96],
  ['fe80::', 10],
  ['ff00::', 8],
];
/** Unique-local and the old site-local. */
const privateV6: readonly [string, number][] = [
  ['fc00::', 7],
  ['fec0::', 10],
];
/** /96 prefixes whose last 32 bits are the IPv4 address really reached (IPv4-mapped, NAT64): the IPv4 rules repeat under them. */
const v4Carriers = ['::ffff:', '64:ff9b::'];

function blockList(v4: readonly [string, number][], v6: readonly [string, number][]): BlockList {
  const list = new BlockList();
  for (const [net, prefix] of v4) {
    list.addSubnet(net, prefix, 'ipv4');
    for (const carrier of v4Carriers) list.addSubnet(`${carrier}${net}`, 96 + prefix, 'ipv6');
  }
  for (const [net, prefix] of v6) list.addSubnet(net, prefix, 'ipv6');
  return list;
}

const never = blockList(neverV4, neverV6);
const privateRanges = blockList(privateV4, privateV6);

/** Whether Janus may be given this address (an IP literal; a name never passes). */
export function peerAddressAllowed(address: string, policy: PeerAddressPolicy): boolean {
  // Node's own parser: dotted quads only (no `127.1`, octal or hex spellings), IPv6 in every form.
  const family = isIP(address);
  if (family === 0) return false;
  const type = family === 4 ? 'ipv4' : 'ipv6';
  if (never.check(address, type)) return false;
  return policy.privatePeers || !privateRanges.check(address, type);
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
