/**
 * What a session description says its AUTHOR will send. Pure functions, no dependencies:
 * the signalling relay uses them to enforce lock settings on offers and answers.
 *
 * The reading is deliberately conservative: whenever a section could be read as sending,
 * by any reader, it is. RFC 3264 §5.1 lets a session-level direction stand for the sections
 * without their own, but Janus (sdp-utils) reads only the section's own attribute and takes
 * sendrecv without one: a session-level `a=recvonly` over a bare audio section made the
 * daemon see "not sending" while Janus forwarded the audio (issue 28 point 2). So a section
 * sends media unless
 * - its port is 0 and it is not marked `a=bundle-only` (a rejected or stopped section), or
 * - its OWN direction is exactly `recvonly` or `inactive`, and no `sendrecv`/`sendonly`
 *   attribute appears in it. A session-level direction can make a section send, never quiet.
 * No direction attribute means sendrecv (RFC 4566 §6, RFC 8866 §6.7).
 */

export type Direction = 'sendrecv' | 'sendonly' | 'recvonly' | 'inactive';

export interface MediaSection {
  /** The media type of the `m=` line, lower-cased: audio, video, application, ... */
  readonly kind: string;
  readonly port: number;
  /** The section's `a=mid`, or null. */
  readonly mid: string | null;
  /** The section-level direction, else the session-level one, else sendrecv (RFC 3264 §5.1). */
  readonly direction: Direction;
  /** Port 0 without bundle-only: the section carries nothing. */
  readonly rejected: boolean;
  /** The author of this description would send this kind of media through this section, by any reading. */
  readonly sends: boolean;
  /** The author would take media in through this section (its direction is recvonly or sendrecv and it is not rejected). */
  readonly receives: boolean;
}

export interface Sending {
  readonly audio: boolean;
  readonly video: boolean;
}

interface Scope {
  /** The last sending direction, leniently read, or null. */
  readonly sendish: Direction | null;
  readonly quiet: Direction | null;
}

// Leniently read: anything that looks like a sending direction counts as one.
const sendish = /^a\s*=\s*(send(?:recv|only))\b/i;
// Strictly read: only the exact attribute line makes a section quiet.
const exactQuiet = /^a=(recvonly|inactive)$/;

function scopeOf(lines: readonly string[]): Scope {
  let quiet: Direction | null = null;
  let send: Direction | null = null;
  for (const line of lines) {
    const loud = sendish.exec(line.trim());
    if (loud) send = (loud[1] ?? '').toLowerCase() as Direction;
    const match = exactQuiet.exec(line);
    if (match) quiet = match[1] as Direction;
  }
  return { sendish: send, quiet };
}

function directionOf(section: Scope, session: Scope): { direction: Direction; quiet: boolean } {
  if (section.sendish) return { direction: section.sendish, quiet: false };
  if (section.quiet) return { direction: section.quiet, quiet: true };
  // No direction of its own: RFC 3264 takes the session-level one, Janus takes sendrecv; it sends.
  if (session.sendish) return { direction: session.sendish, quiet: false };
  if (session.quiet) return { direction: session.quiet, quiet: false };
  return { direction: 'sendrecv', quiet: false };
}

/** Splits on CRLF, LF or a lone CR; nothing else of a line is changed. */
function linesOf(sdp: string): string[] {
  return sdp.split(/\r\n|\n|\r/);
}

/** The `m=` sections of a description, in order. */
export function mediaSections(sdp: string): MediaSection[] {
  const lines = linesOf(sdp);
  const blocks: string[][] = [];
  const session: string[] = [];
  for (const line of lines) {
    // A media line is recognised even with leading white space or an upper-case letter.
    if (/^\s*m\s*=/i.test(line)) blocks.push([line.trim()]);
    else (blocks.at(-1) ?? session).push(line);
  }
  const sessionScope = scopeOf(session);
  return blocks.map(([mline = '', ...attributes]) => {
    const fields = mline.replace(/^m\s*=\s*/i, '').split(/\s+/);
    const kind = (fields[0] ?? '').toLowerCase();
    // "9" or "9/2" (port/number of ports); anything unparseable counts as a live port.
    const portText = fields[1] ?? '';
    const port = /^\d+(?:\/\d+)?$/.test(portText) ? Number(portText.split('/')[0]) : -1;
    const bundleOnly = attributes.some((line) => /^a\s*=\s*bundle-only\b/i.test(line.trim()));
    const rejected = port === 0 && !bundleOnly;
    const { direction, quiet } = directionOf(scopeOf(attributes), sessionScope);
    const mid = attributes.map((line) => /^a=mid:(\S+)\s*$/.exec(line)?.[1]).find((m) => m !== undefined) ?? null;
    const receives = !rejected && (direction === 'sendrecv' || direction === 'recvonly');
    return { kind, port, mid, direction, rejected, sends: !rejected && !quiet, receives };
  });
}

/** Whether the author of `sdp` would send audio, and video, through any section. */
export function sending(sdp: string): Sending {
  const sections = mediaSections(sdp);
  return {
    audio: sections.some((s) => s.sends && s.kind === 'audio'),
    video: sections.some((s) => s.sends && s.kind === 'video'),
  };
}

/**
 * Why `sdp` is not plainly formed text, or null. Line breaks must be CRLF or LF; a lone CR or
 * another control character could make a browser read lines differently from this module.
 */
export function malformation(sdp: string): string | null {
  if (/\r(?!\n)/.test(sdp)) return 'a carriage return not followed by a line feed';
  if (/[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f]/.test(sdp)) return 'a control character';
  return null;
}
