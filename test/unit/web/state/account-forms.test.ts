// The organiser's forms as a reducer (issue 32): what a submit and each answer of the server leave
// the form showing; the view draws it, announces the message and moves the focus to its field.
import t from 'tap';
import {
  accountForm,
  initialForm,
  ssoRefusal,
  type AccountFormEvent,
} from '../../../../src/web/state/account-forms.js';

const run = (...events: AccountFormEvent[]) => events.reduce(accountForm, initialForm);
const signIn: AccountFormEvent = { type: 'submit', form: 'signIn' };
const refused = (code: string, field: string | null = null, retryAfter: number | null = null): AccountFormEvent => ({
  type: 'refused',
  refusal: { code, field, retryAfter },
});

t.test('sign in', async (t) => {
  t.same(run(signIn), { phase: 'sending', error: null, minutes: 0 });
  t.equal(run(signIn, signIn).phase, 'sending', 'a second submit while sending does nothing');
  t.same(run(signIn, refused('sign_in_failed')).error, { message: 'signInFailed', field: 'email' });
  t.same(run(signIn, refused('too_many_sign_ins', null, 601)), {
    phase: 'editing',
    error: { message: 'tooManyTries', field: null },
    minutes: 11,
  });
  t.equal(run(signIn, refused('too_many_sign_ins', null, 5)).minutes, 1, 'at least a minute');
  t.same(run(signIn, refused('network')).error, { message: 'failed', field: null });
  t.same(run(signIn, refused('sign_in_failed'), signIn), { phase: 'sending', error: null, minutes: 0 }, 'again');
  t.equal(run(signIn, { type: 'answered' }).phase, 'done');
});

t.test('set a password', async (t) => {
  const submit = (password: string, repeat = password): AccountFormEvent => ({
    type: 'submit',
    form: 'password',
    password,
    repeat,
  });
  t.same(run(submit('kurz')).error, { message: 'tooShort', field: 'password' }, 'checked before sending');
  t.equal(
    run(submit('🐢🦊🐇🐢🦊🐇🐢🦊🐇🐢🦊')).error?.message,
    'tooShort',
    'eleven characters, counted as people count',
  );
  t.same(run(submit('Korrekt-Pferd-Batterie', 'Korrekt-Pferd-Batteri')).error, { message: 'notSame', field: 'repeat' });
  t.equal(run(submit('Korrekt-Pferd-Batterie')).phase, 'sending');
  t.same(run(submit('password123456'), refused('invalid_field', 'password')).error, {
    message: 'tooCommon',
    field: 'password',
  });
  t.same(run(submit('Korrekt-Pferd-Batterie'), refused('link_invalid')).error, { message: 'linkInvalid', field: null });
});

t.test("single sign-on's refusal on /signin: each code its message, an unknown one a refusal", async (t) => {
  t.equal(ssoRefusal(null), null);
  t.equal(ssoRefusal(''), null);
  t.equal(ssoRefusal('sso_domain_not_allowed'), 'ssoDomain');
  t.equal(ssoRefusal('sso_account_unknown'), 'ssoUnknown');
  t.equal(ssoRefusal('account_disabled'), 'ssoDisabled');
  t.equal(ssoRefusal('sso_email_unverified'), 'ssoUnverified');
  t.equal(ssoRefusal('sso_state_invalid'), 'ssoExpired');
  t.equal(ssoRefusal('sso_response_invalid'), 'ssoRefused');
  t.equal(ssoRefusal('sso_unavailable'), 'ssoUnavailable');
  t.equal(ssoRefusal('toString'), 'ssoRefused', 'no inherited name');
  t.equal(ssoRefusal('something_newer'), 'ssoRefused');
});
