import { Type, type Static } from '#typebox';
import { accountSources } from '../../engine/accounts/account.js';
import { passwordBounds } from '../../engine/accounts/password.js';
import { refusal } from '../validation.js';

const closed = (unknownOf: string) => ({
  additionalProperties: false,
  ...refusal({ code: 'invalid_field', field: 'body', message: 'the body must be a JSON object', unknownOf }),
});

// The email is only shape-checked here (a string of bounded length): whether it is an address is
// the engine's to judge, and at sign-in a malformed one is answered as any wrong email is.
const email = Type.String({
  maxLength: 320,
  ...refusal({ message: 'email must be a string of at most 320 characters' }),
});
const password = Type.String({
  maxLength: 1024,
  ...refusal({ message: `password must be a string (${passwordBounds.min} to ${passwordBounds.max} characters)` }),
});

/** POST /api/session */
export const SignInBody = Type.Object({ email, password }, closed('a sign-in'));
export type SignInBody = Static<typeof SignInBody>;

/** POST /api/password: the one-time link's secret and the new password. */
export const PasswordBody = Type.Object(
  {
    token: Type.String({ maxLength: 128, ...refusal({ message: 'token must be the secret of a one-time link' }) }),
    password,
  },
  closed('a password change'),
);
export type PasswordBody = Static<typeof PasswordBody>;

/** An account as the API shows it: never its password hash. */
const AccountAnswer = Type.Object({
  account_id: Type.String(),
  email: Type.String(),
  name: Type.String(),
  admin: Type.Boolean(),
  source: Type.Enum(accountSources),
});

/** The signed-in account and the token its state-changing requests send as X-CSRF-Token. */
export const MeAnswer = Type.Object({ account: AccountAnswer, csrf_token: Type.String() });

export const PasswordAnswer = Type.Object({ account: AccountAnswer });

/** GET /api/sign-in-methods: what the sign-in page offers. */
export const SignInMethodsAnswer = Type.Object({ password: Type.Boolean(), single_sign_on: Type.Boolean() });
