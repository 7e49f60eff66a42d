/**
 * Every failure the engine reports to a caller. Each HTTP surface maps a code to one
 * status and shape in its own table; the engine knows nothing of HTTP.
 */
export type EngineErrorCode =
  | 'invalid_field'
  | 'room_not_found'
  | 'room_exists'
  | 'waiting_room_forced'
  | 'waiting_room_unavailable'
  | 'waiting_room_mode_fixed'
  | 'token_exists'
  | 'token_not_found'
  | 'access_code_invalid'
  | 'too_many_attempts'
  | 'too_many_knocks'
  | 'too_many_waiting'
  | 'guest_denied'
  | 'barred'
  | 'waiting_room_full'
  | 'request_not_found'
  | 'request_not_waiting'
  | 'not_moderator'
  | 'meeting_not_found'
  | 'participant_not_found'
  | 'subgroup_closed'
  | 'account_exists'
  | 'account_not_found'
  | 'sign_in_failed'
  | 'link_invalid'
  | 'too_many_sign_ins'
  | 'account_disabled'
  | 'sso_email_unverified'
  | 'sso_domain_not_allowed'
  | 'sso_account_unknown';

export class EngineError extends Error {
  override readonly name = 'EngineError';
  constructor(
    readonly code: EngineErrorCode,
    message: string,
    readonly field?: string,
  ) {
    super(message);
  }
}

export function invalidField(field: string, message: string): EngineError {
  return new EngineError('invalid_field', message, field);
}
