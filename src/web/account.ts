/**
 * The organiser's pages: /signin, /set-password (a one-time link, its secret in the fragment) and
 * /rooms (who is signed in, Sign out, and "My rooms": my-rooms.ts). State in state/account-forms.ts.
 */
import { call, type Me } from './account-api.js';
import { announce } from './announce.js';
import { button, el, field, show } from './dom.js';
import { myRoomsView } from './my-rooms.js';
import {
  accountForm,
  initialForm,
  ssoRefusal,
  type AccountFormEvent,
  type AccountFormState,
} from './state/account-forms.js';
import { fill, language, withLanguage, words } from './words/index.js';

const w = words.account;
const app = document.getElementById('app')!;
document.documentElement.lang = language;

/** A form whose state comes from the reducer: the error under it (announced), the button busy while sending. */
function accountFormView(
  controls: Record<'email' | 'password' | 'repeat', HTMLInputElement | null>,
  labelled: readonly HTMLElement[],
  submitLabel: string,
  busyLabel: string,
  send: (dispatch: (event: AccountFormEvent) => AccountFormState) => void,
  submitEvent: () => AccountFormEvent,
): HTMLFormElement {
  let state = initialForm;
  const error = el('p', { class: 'error', id: 'account-error', hidden: true });
  const submit = el('button', { type: 'submit', class: 'primary', text: submitLabel });
  const fields = Object.values(controls).filter((c): c is HTMLInputElement => c !== null);
  const dispatch = (event: AccountFormEvent): AccountFormState => {
    state = accountForm(state, event);
    submit.disabled = state.phase === 'sending';
    submit.textContent = state.phase === 'sending' ? busyLabel : submitLabel;
    for (const control of fields) {
      control.removeAttribute('aria-invalid');
      describedBy(control, null);
    }
    if (state.error) {
      const text = fill(w[state.error.message], { minutes: String(state.minutes) });
      error.textContent = text;
      error.hidden = false;
      const target = state.error.field ? controls[state.error.field] : null;
      // The message is read with the field it belongs to, and spoken once through the live region.
      target?.setAttribute('aria-invalid', 'true');
      if (target) describedBy(target, error.id);
      (target ?? submit).focus();
      announce(text);
    } else error.hidden = true;
    return state;
  };
  const form = el('form', { novalidate: true, class: 'account-form' }, ...labelled, error, submit);
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    if (dispatch(submitEvent()).phase === 'sending') send(dispatch);
  });
  return form;
}

/** A control's description: its hint (when it has one) and, while it is at fault, the error. */
function describedBy(control: HTMLInputElement, extra: string | null): void {
  const hint = document.getElementById(`${control.id}-hint`) ? `${control.id}-hint` : null;
  const ids = [hint, extra === hint ? null : extra].filter((id): id is string => id !== null);
  if (ids.length > 0) control.setAttribute('aria-describedby', ids.join(' '));
  else control.removeAttribute('aria-describedby');
}

function input(type: string, autocomplete: string): HTMLInputElement {
  return el('input', { type, autocomplete, required: true, spellcheck: 'false' });
}

function signInPage(): void {
  document.title = w.signInTitle;
  const email = input('email', 'username');
  const password = input('password', 'current-password');
  const form = accountFormView(
    { email, password, repeat: null },
    [field(w.email, email), field(w.password, password)],
    w.signIn,
    w.signingIn,
    (dispatch) =>
      void call<Me>('POST', '/api/session', { email: email.value, password: password.value }).then((answer) => {
        if (answer.ok) {
          dispatch({ type: 'answered' });
          location.assign(withLanguage('/rooms'));
        } else dispatch({ type: 'refused', refusal: answer.refusal });
      }),
    () => ({ type: 'submit', form: 'signIn' }),
  );
  const query = new URLSearchParams(location.search);
  const signedOut = query.has('signed-out');
  // Single sign-on sent her back with why (its code): said once; a reload does not say it again.
  const sso = ssoRefusal(query.get('sso_error'));
  if (sso) history.replaceState(null, '', withLanguage(location.pathname));
  const ssoError = sso ? el('p', { class: 'error', text: w[sso] }) : null;
  // Offered only when the service has single sign-on (GET /api/sign-in-methods says).
  const ssoChoice = el(
    'div',
    { class: 'sso-choice', hidden: true },
    el('p', {}, el('a', { href: withLanguage('/auth/oidc/start'), class: 'button-link', text: w.ssoSignIn })),
    el('p', { text: w.orPassword }),
  );
  show(
    app,
    el('h1', { text: w.signInHeading }),
    ...(signedOut ? [el('p', { class: 'status-note', text: w.signedOut })] : []),
    ...(ssoError ? [ssoError] : []),
    ssoChoice,
    form,
  );
  if (signedOut) announce(w.signedOut);
  if (sso) announce(w[sso]);
  email.focus();
  void call<{ single_sign_on: boolean }>('GET', '/api/sign-in-methods').then((answer) => {
    if (answer.ok && answer.body?.single_sign_on) ssoChoice.hidden = false;
  });
}

function setPasswordPage(): void {
  document.title = w.setTitle;
  // The link's secret travels in the fragment (never sent to a server, never logged); it leaves the address at once.
  const token = location.hash.slice(1);
  history.replaceState(null, '', withLanguage(location.pathname));
  const heading = el('h1', { text: w.setHeading });
  if (!/^[A-Za-z0-9_-]{43}$/.test(token)) {
    show(app, heading, el('p', { class: 'error', text: w.noLink }));
    announce(w.noLink);
    return;
  }
  const password = input('password', 'new-password');
  const repeat = input('password', 'new-password');
  const form = accountFormView(
    { email: null, password, repeat },
    [field(w.newPassword, password, w.newPasswordHint), field(w.repeatPassword, repeat)],
    w.save,
    w.saving,
    (dispatch) =>
      void call('POST', '/api/password', { token, password: password.value }).then((answer) => {
        if (!answer.ok) {
          dispatch({ type: 'refused', refusal: answer.refusal });
          return;
        }
        dispatch({ type: 'answered' });
        const done = el('h1', { text: w.passwordSet, tabindex: '-1' });
        show(
          app,
          done,
          el('p', {}, el('a', { href: withLanguage('/signin'), class: 'button-link', text: w.goSignIn })),
        );
        done.focus();
        announce(w.passwordSet);
      }),
    () => ({ type: 'submit', form: 'password', password: password.value, repeat: repeat.value }),
  );
  show(app, heading, el('p', { text: w.setIntro }), form);
  password.focus();
}

async function roomsPage(): Promise<void> {
  document.title = w.roomsTitle;
  const me = await call<Me>('GET', '/api/me');
  if (!me.ok || !me.body) {
    location.replace(withLanguage('/signin'));
    return;
  }
  const { account, csrf_token: csrf } = me.body;
  const signOut = button(w.signOut, () => {
    signOut.disabled = true;
    void call('DELETE', '/api/session', undefined, csrf).then((answer) => {
      if (answer.ok) location.assign(`${withLanguage('/signin')}${location.search ? '&' : '?'}signed-out`);
      else {
        signOut.disabled = false;
        announce(w.failed);
      }
    });
  });
  const heading = el('h1', { text: w.roomsTitle, tabindex: '-1' });
  app.classList.add('my-rooms-page');
  show(
    app,
    el(
      'div',
      { class: 'rooms-bar' },
      heading,
      el(
        'div',
        { class: 'who' },
        el('p', { class: 'signed-in-as', text: fill(w.signedInAs, { name: account.name, email: account.email }) }),
        ...(account.admin ? [el('p', { class: 'admin-note', text: w.adminAccount })] : []),
        signOut,
      ),
    ),
    myRoomsView(account, csrf, heading),
  );
  heading.focus();
}

const screens: Record<string, () => void | Promise<void>> = {
  '/signin': signInPage,
  '/set-password': setPasswordPage,
  '/rooms': roomsPage,
};
void (screens[location.pathname] ?? signInPage)();
