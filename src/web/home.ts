// The home page at `/` (issue 32 point 1): join a meeting with a link or code, or sign in to
// organise one. It is the same for everyone (no room, no count, no name of anyone), so it may be
// cached; whether a room exists is answered only by the arrival, after the name step, as for
// any address.
import { createElement, DoorOpen, MonitorSmartphone, Server, Video, type IconNode } from 'lucide';
import { announce } from './announce.js';
import { el, field } from './dom.js';
import { roomFromTyped, roomHref, typedLinkMax, type Refusal } from './room-address.js';
import { language, withLanguage, words } from './words/index.js';

const said = words.home;
document.documentElement.lang = language;
document.title = said.title;
// The language goes on to the room only when the address chose it (else the browser's choice holds there too).
const chosen = new URLSearchParams(location.search).has('lang') ? language : null;

const decoration = (node: IconNode, size = 22): SVGElement =>
  createElement(node, { 'aria-hidden': 'true', focusable: 'false', class: 'icon', width: size, height: size });

const refusals: Record<Refusal, string> = { empty: said.empty, not_a_code: said.notACode, elsewhere: said.elsewhere };

function joinCard(): HTMLElement {
  const code = el('input', {
    name: 'code',
    autocomplete: 'off',
    autocapitalize: 'none',
    spellcheck: 'false',
    enterkeyhint: 'go',
    maxlength: typedLinkMax,
  });
  const error = el('p', { class: 'error', role: 'alert', id: 'join-error', hidden: true });
  const form = el(
    'form',
    { class: 'join-form', novalidate: true },
    field(said.codeLabel, code, said.codeHint),
    error,
    el('button', { type: 'submit', text: said.join }),
  );
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    const typed = roomFromTyped(code.value, location.host);
    if ('refused' in typed) {
      error.textContent = refusals[typed.refused];
      error.hidden = false;
      code.setAttribute('aria-invalid', 'true');
      code.setAttribute('aria-errormessage', error.id);
      code.focus();
      return;
    }
    announce(said.opening);
    location.assign(roomHref(typed.room, typed.token, chosen));
  });
  code.addEventListener('input', () => {
    error.hidden = true;
    code.removeAttribute('aria-invalid');
  });
  return el(
    'section',
    { class: 'home-card', 'aria-labelledby': 'join-heading' },
    el('h2', { id: 'join-heading' }, decoration(Video), el('span', { text: said.joinHeading })),
    form,
  );
}

function organiseCard(): HTMLElement {
  return el(
    'section',
    { class: 'home-card', 'aria-labelledby': 'organise-heading' },
    el('h2', { id: 'organise-heading' }, decoration(DoorOpen), el('span', { text: said.organiseHeading })),
    el('p', { text: said.organiseText }),
    el('a', { class: 'button-link', href: withLanguage('/signin'), text: said.signIn }),
  );
}

function features(): HTMLElement {
  const item = (node: IconNode, text: string) => el('li', {}, decoration(node, 20), el('span', { text }));
  return el(
    'section',
    { class: 'home-features', 'aria-labelledby': 'features-heading' },
    el('h2', { id: 'features-heading', text: said.featuresHeading }),
    el(
      'ul',
      {},
      item(DoorOpen, said.featureWaiting),
      item(MonitorSmartphone, said.featureBrowser),
      item(Server, said.featureHosted),
    ),
  );
}

document
  .getElementById('home-bar')
  ?.replaceChildren(
    el('span', { class: 'brand' }, decoration(Video, 26), el('span', { text: said.brand })),
    el('a', { class: 'button-link quiet', href: withLanguage('/signin'), text: said.signIn }),
  );
document
  .getElementById('app')
  ?.replaceChildren(
    el('div', { class: 'home-hero' }, el('h1', { text: said.heading }), el('p', { class: 'lead', text: said.intro })),
    el('div', { class: 'home-grid' }, joinCard(), organiseCard()),
    features(),
  );
