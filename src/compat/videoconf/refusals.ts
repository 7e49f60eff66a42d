/**
 * Every way the gateway turns an arrival away: one code, one status, one sentence for the
 * person (shown on the page) and one error name for the embedding application (posted to
 * the parent frame as `errorOccurred`). Sentences never quote the token or a secret.
 */
export const refusals = {
  token_required: {
    status: 403,
    name: 'conference.authenticationRequired',
    text: 'This meeting needs a sign-in link from the application you came from. Open it again from there.',
  },
  token_too_large: {
    status: 403,
    name: 'conference.tokenInvalid',
    text: 'The sign-in link is too long to be a valid one. Open the meeting again from the application.',
  },
  token_malformed: {
    status: 403,
    name: 'conference.tokenInvalid',
    text: 'The sign-in link is damaged or incomplete. Open the meeting again from the application.',
  },
  duplicate_claim: {
    status: 403,
    name: 'conference.tokenInvalid',
    text: 'The sign-in link names the same detail twice, so it cannot be trusted. The application must issue a new one.',
  },
  algorithm_refused: {
    status: 403,
    name: 'conference.tokenInvalid',
    text: 'The sign-in link was not signed for this service (only HS256 signatures are accepted).',
  },
  signature_invalid: {
    status: 403,
    name: 'conference.tokenInvalid',
    text: 'The sign-in link was not signed for this service. The application must use the secret this service knows it by.',
  },
  claim_missing: {
    status: 403,
    name: 'conference.tokenInvalid',
    text: 'The sign-in link lacks a required claim (exp, sub, iss, aud and room are required).',
  },
  issuer_not_accepted: {
    status: 403,
    name: 'conference.tokenInvalid',
    text: 'The sign-in link comes from an application this service does not accept (its issuer).',
  },
  audience_not_accepted: {
    status: 403,
    name: 'conference.tokenInvalid',
    text: 'The sign-in link was made for another service (its audience).',
  },
  token_expired: {
    status: 403,
    name: 'conference.tokenExpired',
    text: 'The sign-in link has expired. Open the meeting again from the application to get a new one.',
  },
  token_not_yet_valid: {
    status: 403,
    name: 'conference.tokenNotYetValid',
    text: 'The sign-in link is not valid yet. Check the clock of the application that made it, or try again in a moment.',
  },
  issued_in_future: {
    status: 403,
    name: 'conference.tokenInvalid',
    text: 'The sign-in link says it was issued in the future. Check the clock of the application that made it.',
  },
  lifetime_too_long: {
    status: 403,
    name: 'conference.tokenInvalid',
    text: 'The sign-in link is valid for longer than this service accepts.',
  },
  wrong_room: { status: 403, name: 'conference.roomMismatch', text: 'The sign-in link is for another meeting room.' },
  wrong_tenant: {
    status: 403,
    name: 'conference.roomMismatch',
    text: 'The sign-in link belongs to another application on this service.',
  },
  name_refused: {
    status: 403,
    name: 'conference.tokenInvalid',
    text: 'The name in the sign-in link cannot be used here (it passes for the service or for a role).',
  },
  room_name_invalid: {
    status: 404,
    name: 'conference.roomNotFound',
    text: 'This meeting address is not valid: a room name has 1 to 200 characters and no control characters.',
  },
  room_unavailable: { status: 404, name: 'conference.roomNotFound', text: 'This meeting room cannot be opened.' },
  too_many_rooms: {
    status: 429,
    name: 'conference.tooManyRequests',
    text: 'Too many new meeting rooms were opened from your network. Try again in a few minutes, or join a room that is already open.',
  },
} as const;

export type RefusalCode = keyof typeof refusals;

/** A refused arrival: thrown by the verification, answered by the route through the table. */
export class GatewayRefusal extends Error {
  override readonly name = 'GatewayRefusal';
  constructor(
    readonly code: RefusalCode,
    /** When to come back (a limit's refusal): answered as Retry-After. */
    readonly retryAfterSecs: number | null = null,
    /** The sentence for the person, when it says more than the table's (which claim is missing). */
    text: string = refusals[code].text,
  ) {
    super(text);
  }

  /** A required claim is absent: the sentence names it, so the application's developer knows what to add. */
  static missing(claim: 'exp' | 'sub' | 'iss' | 'aud' | 'room'): GatewayRefusal {
    return new GatewayRefusal(
      'claim_missing',
      null,
      `The sign-in link lacks its "${claim}" claim (exp, sub, iss, aud and room are required).`,
    );
  }

  /** Valid for longer than COMPAT_JITSI_MAX_TOKEN_LIFETIME: the sentence says the cap. */
  static tooLong(maxSecs: number): GatewayRefusal {
    const cap = maxSecs % 3600 === 0 ? `${maxSecs / 3600} hours` : `${maxSecs} seconds`;
    return new GatewayRefusal(
      'lifetime_too_long',
      null,
      `The sign-in link is valid for longer than this service accepts (at most ${cap}).`,
    );
  }
}
