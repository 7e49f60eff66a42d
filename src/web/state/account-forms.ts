/**
 * The organiser's forms (sign in, set a password through a one-time link) as a reducer: her
 * submit and the server's answer in, what the form shows out. No DOM, no words: messages are
 * keys of the `account` catalogue section, with the minutes a limit asks her to wait.
 */

export type AccountMessage =
  'signInFailed' | 'tooManyTries' | 'tooShort' | 'notSame' | 'tooCommon' | 'linkInvalid' | 'noLink' | 'failed';

/** Why single sign-on sent her back to /signin: keys of the `account` catalogue section. */
export type SsoMessage =
  'ssoDomain' | 'ssoUnknown' | 'ssoDisabled' | 'ssoUnverified' | 'ssoExpired' | 'ssoRefused' | 'ssoUnavailable';

const ssoMessages: Readonly<Record<string, SsoMessage>> = {
  sso_domain_not_allowed: 'ssoDomain',
  sso_account_unknown: 'ssoUnknown',
  account_disabled: 'ssoDisabled',
  sso_email_unverified: 'ssoUnverified',
  sso_state_invalid: 'ssoExpired',
  sso_response_invalid: 'ssoRefused',
  sso_unavailable: 'ssoUnavailable',
};

/**
 * The message of the `sso_error` code single sign-on's callback put into /signin's address; null
 * without one. A code the page does not know (a newer server) reads as a refusal.
 */
export function ssoRefusal(code: string | null): SsoMessage | null {
  if (code === null || code === '') return null;
  return Object.hasOwn(ssoMessages, code) ? ssoMessages[code]! : 'ssoRefused';
}

export interface AccountFormState {
  readonly phase: 'editing' | 'sending' | 'done';
  /** What is wrong, and which control it belongs to (the focus goes there). */
  readonly error: { readonly message: AccountMessage; readonly field: 'email' | 'password' | 'repeat' | null } | null;
  /** For `tooManyTries`: whole minutes, at least one. */
  readonly minutes: number;
}

export const initialForm: AccountFormState = { phase: 'editing', error: null, minutes: 0 };

/** The server's refusal, as the page's api.ts hands it over. */
export interface Refusal {
  readonly code: string;
  readonly field: string | null;
  readonly retryAfter: number | null;
}

export type AccountFormEvent =
  | { readonly type: 'submit'; readonly form: 'signIn' }
  | { readonly type: 'submit'; readonly form: 'password'; readonly password: string; readonly repeat: string }
  | { readonly type: 'answered' }
  | { readonly type: 'refused'; readonly refusal: Refusal };

const minLength = 12;

const failed = (message: AccountMessage, field: 'email' | 'password' | 'repeat' | null, minutes = 0) =>
  ({ phase: 'editing', error: { message, field }, minutes }) as const;

function refusedWith(refusal: Refusal): AccountFormState {
  switch (refusal.code) {
    case 'sign_in_failed':
      return failed('signInFailed', 'email');
    case 'too_many_sign_ins':
      return failed('tooManyTries', null, Math.max(1, Math.ceil((refusal.retryAfter ?? 60) / 60)));
    case 'link_invalid':
      return failed('linkInvalid', null);
    case 'invalid_field':
      return refusal.field === 'password' ? failed('tooCommon', 'password') : failed('failed', null);
    default:
      return failed('failed', null);
  }
}

export function accountForm(state: AccountFormState, event: AccountFormEvent): AccountFormState {
  switch (event.type) {
    case 'submit':
      // A second submit while the first is on its way does nothing.
      if (state.phase !== 'editing') return state;
      if (event.form === 'password') {
        if ([...event.password].length < minLength) return failed('tooShort', 'password');
        if (event.password !== event.repeat) return failed('notSame', 'repeat');
      }
      return { phase: 'sending', error: null, minutes: 0 };
    case 'answered':
      return { phase: 'done', error: null, minutes: 0 };
    case 'refused':
      return refusedWith(event.refusal);
  }
}
