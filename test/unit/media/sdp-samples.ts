/**
 * Session descriptions shaped like Chrome's (unified plan, max-bundle), CRLF line endings.
 * `chromeOffer` takes the direction of each m-section.
 */
const crlf = (lines: readonly string[]) => lines.join('\r\n') + '\r\n';

const session = [
  'v=0',
  'o=- 4611731400430051336 2 IN IP4 127.0.0.1',
  's=-',
  't=0 0',
  'a=group:BUNDLE 0 1',
  'a=extmap-allow-mixed',
  'a=msid-semantic: WMS 5d8b9f0e-9c1b-4f7e-9a34-3c1f3f0e2a11',
];

function audio(mid: string, direction: string | null, port = 9): string[] {
  return [
    `m=audio ${port} UDP/TLS/RTP/SAVPF 111 63 9 0 8 13 110 126`,
    'c=IN IP4 0.0.0.0',
    'a=rtcp:9 IN IP4 0.0.0.0',
    'a=ice-ufrag:Xq3V',
    'a=ice-pwd:9b1rV7eC0Q3k8nZt2qP5hG4w',
    'a=ice-options:trickle',
    'a=fingerprint:sha-256 7B:8B:F0:65:5F:78:E2:51:3B:AC:6F:F3:3F:46:1B:35:DC:B8:5F:64:1A:24:C2:43:F0:A1:58:D0:A1:2C:19:08',
    'a=setup:actpass',
    `a=mid:${mid}`,
    'a=extmap:1 urn:ietf:params:rtp-hdrext:ssrc-audio-level',
    'a=extmap:2 http://www.webrtc.org/experiments/rtp-hdrext/abs-send-time',
    ...(direction ? [`a=${direction}`] : []),
    'a=msid:5d8b9f0e-9c1b-4f7e-9a34-3c1f3f0e2a11 0c7c1a3e-5f2d-4a6b-8f1e-2b3c4d5e6f70',
    'a=rtcp-mux',
    'a=rtpmap:111 opus/48000/2',
    'a=rtcp-fb:111 transport-cc',
    'a=fmtp:111 minptime=10;useinbandfec=1',
    'a=rtpmap:63 red/48000/2',
    'a=fmtp:63 111/111',
    'a=rtpmap:9 G722/8000',
    'a=rtpmap:0 PCMU/8000',
    'a=rtpmap:8 PCMA/8000',
    'a=rtpmap:13 CN/8000',
    'a=rtpmap:110 telephone-event/48000',
    'a=rtpmap:126 telephone-event/8000',
    'a=ssrc:1001 cname:q2Wc3E4r5T6y7U8i',
    'a=ssrc:1001 msid:5d8b9f0e-9c1b-4f7e-9a34-3c1f3f0e2a11 0c7c1a3e-5f2d-4a6b-8f1e-2b3c4d5e6f70',
  ];
}

function video(mid: string, direction: string | null, port = 9): string[] {
  return [
    `m=video ${port} UDP/TLS/RTP/SAVPF 96 97 102 103 45 46`,
    'c=IN IP4 0.0.0.0',
    'a=rtcp:9 IN IP4 0.0.0.0',
    'a=ice-ufrag:Xq3V',
    'a=ice-pwd:9b1rV7eC0Q3k8nZt2qP5hG4w',
    'a=ice-options:trickle',
    'a=fingerprint:sha-256 7B:8B:F0:65:5F:78:E2:51:3B:AC:6F:F3:3F:46:1B:35:DC:B8:5F:64:1A:24:C2:43:F0:A1:58:D0:A1:2C:19:08',
    'a=setup:actpass',
    `a=mid:${mid}`,
    'a=extmap:14 urn:ietf:params:rtp-hdrext:toffset',
    'a=extmap:3 http://www.ietf.org/id/draft-holmer-rmcat-transport-wide-cc-extensions-01',
    ...(direction ? [`a=${direction}`] : []),
    'a=msid:5d8b9f0e-9c1b-4f7e-9a34-3c1f3f0e2a11 9a8b7c6d-5e4f-4a3b-2c1d-0e9f8a7b6c5d',
    'a=rtcp-mux',
    'a=rtcp-rsize',
    'a=rtpmap:96 VP8/90000',
    'a=rtcp-fb:96 goog-remb',
    'a=rtcp-fb:96 transport-cc',
    'a=rtcp-fb:96 ccm fir',
    'a=rtcp-fb:96 nack',
    'a=rtcp-fb:96 nack pli',
    'a=rtpmap:97 rtx/90000',
    'a=fmtp:97 apt=96',
    'a=rtpmap:102 H264/90000',
    'a=fmtp:102 level-asymmetry-allowed=1;packetization-mode=1;profile-level-id=42001f',
    'a=rtpmap:103 rtx/90000',
    'a=fmtp:103 apt=102',
    'a=rtpmap:45 AV1/90000',
    'a=rtpmap:46 rtx/90000',
    'a=fmtp:46 apt=45',
    'a=ssrc-group:FID 2001 2002',
    'a=ssrc:2001 cname:q2Wc3E4r5T6y7U8i',
    'a=ssrc:2002 cname:q2Wc3E4r5T6y7U8i',
  ];
}

export interface Section {
  readonly kind: 'audio' | 'video';
  readonly direction: string | null;
  readonly port?: number;
  readonly extra?: readonly string[];
}

/** A Chrome-like description with these sections (mids 0, 1, ...), CRLF line endings. */
export function chromeSdp(sections: readonly Section[], sessionExtra: readonly string[] = []): string {
  const body = sections.flatMap((s, i) => [
    ...(s.kind === 'audio' ? audio(String(i), s.direction, s.port) : video(String(i), s.direction, s.port)),
    ...(s.extra ?? []),
  ]);
  const bundle = `a=group:BUNDLE ${sections.map((_, i) => String(i)).join(' ')}`;
  return crlf([
    ...session.map((line) => (line.startsWith('a=group:BUNDLE') ? bundle : line)),
    ...sessionExtra,
    ...body,
  ]);
}

/** The usual offer of a page with camera and microphone. */
export const sendrecvOffer = chromeSdp([
  { kind: 'audio', direction: 'sendrecv' },
  { kind: 'video', direction: 'sendrecv' },
]);

/** A page that only receives (locked, or no devices). */
export const recvonlyOffer = chromeSdp([
  { kind: 'audio', direction: 'recvonly' },
  { kind: 'video', direction: 'recvonly' },
]);

/** Audio only received, video sent. */
export const videoOnlyOffer = chromeSdp([
  { kind: 'audio', direction: 'recvonly' },
  { kind: 'video', direction: 'sendrecv' },
]);

/** Audio sent, video only received. */
export const audioOnlyOffer = chromeSdp([
  { kind: 'audio', direction: 'sendrecv' },
  { kind: 'video', direction: 'recvonly' },
]);
