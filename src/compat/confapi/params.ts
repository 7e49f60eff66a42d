import { failure } from './errors.js';

/**
 * The parameters of one call, exactly as named (names are case-sensitive: `MeetingID` is not
 * `meetingID`). A name sent twice is refused rather than resolved either way: a client bug
 * or an injection must not pick the role or the meeting.
 */
export class Params {
  private readonly values = new Map<string, string>();

  constructor(pairs: readonly (readonly [string, string])[]) {
    for (const [name, value] of pairs) {
      if (this.values.has(name))
        throw failure('validationError', `Parameter '${name}' must not be sent more than once`);
      this.values.set(name, value);
    }
  }

  get(name: string): string | undefined {
    return this.values.get(name);
  }

  has(name: string): boolean {
    return this.values.has(name);
  }

  /** Every parameter in the order sent. */
  entries(): [string, string][] {
    return [...this.values.entries()];
  }
}

/** Upstream booleans are Java's Boolean.parseBoolean: only "true" (any case) is true. */
export function javaBoolean(value: string | undefined, fallback = false): boolean {
  if (value === undefined || value === '') return fallback;
  return value.toLowerCase() === 'true';
}

/** A strict boolean (true/false/1/0, any case) for parameters that refuse anything else. */
export function strictBoolean(name: string, value: string | undefined, fallback: boolean): boolean {
  if (value === undefined || value === '') return fallback;
  const lower = value.toLowerCase();
  if (lower === 'true' || lower === '1') return true;
  if (lower === 'false' || lower === '0') return false;
  throw failure('validationError', `${name} must be a boolean value (true or false)`);
}

export function nonNegativeInteger(
  name: string,
  value: string | undefined,
  fallback: number,
  max = 2_147_483_647,
): number {
  if (value === undefined || value === '') return fallback;
  if (!/^\d{1,10}$/.test(value.trim()) || Number(value.trim()) > max) {
    throw failure('validationError', `${name} must be a non-negative integer`);
  }
  return Number(value.trim());
}

/** Characters a meetingID may never hold: they would break the room's address. */
const forbiddenInMeetingId = /[/?#]/;

/** The call's meetingID: required, at most 256 characters, no `/ ? #`, no `,`, no control characters, no outer spaces. */
export function meetingIdOf(params: Params): string {
  const id = params.get('meetingID');
  if (id === undefined || id === '') throw failure('missingParamMeetingID');
  if (forbiddenInMeetingId.test(id))
    throw failure('invalidMeetingIdentifier', "Meeting ID must not contain '/', '?' or '#'");
  // Counted in code points; a string of at most 256 UTF-16 units cannot hold more, so most ids skip the count.
  if (id.length > 256 && [...id].length > 256)
    throw failure('sizeError', 'Meeting ID must be between 1 and 256 characters');
  if (id.includes(',')) throw failure('validationError', "Meeting ID cannot contain ','");
  if (/\p{Cc}/u.test(id) || id !== id.trim() || /\p{Cs}/u.test(id))
    throw failure('validationError', 'Invalid meeting ID');
  return id;
}

/** A comma-separated list parameter, empty entries dropped. */
export function listOf(value: string | undefined): string[] {
  return (value ?? '')
    .split(',')
    .map((v) => v.trim())
    .filter((v) => v !== '');
}
