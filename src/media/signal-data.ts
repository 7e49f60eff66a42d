import type { SignalData } from '../protocol/live.js';

const descriptionTypes = ['offer', 'answer', 'pranswer', 'rollback'] as const;
type DescriptionType = (typeof descriptionTypes)[number];

/** The largest SDP relayed (the socket's frame limit is 64 KiB anyway). */
export const maxSdpLength = 60_000;
const maxCandidateLength = 2_000;

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

const optional = (value: unknown, type: 'string' | 'number'): boolean =>
  value === undefined || value === null || typeof value === type;

/**
 * Untrusted `signal.data` as the relay forwards it: rebuilt from the known fields only, so
 * nothing else a sender put in reaches the receiver. Null when it is neither a description
 * (`{description: {type, sdp?}}`) nor a candidate (`{candidate: RTCIceCandidateInit | null}`).
 */
export function canonicalSignal(data: unknown): SignalData | null {
  if (!isObject(data)) return null;
  const keys = Object.keys(data);
  if (keys.length !== 1) return null;
  if (keys[0] === 'description') {
    const description = data.description;
    if (!isObject(description) || !descriptionTypes.includes(description.type as DescriptionType)) return null;
    const type = description.type as DescriptionType;
    if (type === 'rollback') return { description: { type } };
    if (typeof description.sdp !== 'string' || description.sdp.length === 0 || description.sdp.length > maxSdpLength)
      return null;
    return { description: { type, sdp: description.sdp } };
  }
  if (keys[0] === 'candidate') {
    const candidate = data.candidate;
    // null (or an empty candidate string) ends the candidates.
    if (candidate === null) return { candidate: null };
    if (
      !isObject(candidate) ||
      typeof candidate.candidate !== 'string' ||
      candidate.candidate.length > maxCandidateLength
    )
      return null;
    if (
      !optional(candidate.sdpMid, 'string') ||
      !optional(candidate.sdpMLineIndex, 'number') ||
      !optional(candidate.usernameFragment, 'string')
    )
      return null;
    const init: Record<string, unknown> = { candidate: candidate.candidate };
    for (const key of ['sdpMid', 'sdpMLineIndex', 'usernameFragment'] as const) {
      if (candidate[key] !== undefined) init[key] = candidate[key];
    }
    return { candidate: init };
  }
  return null;
}
