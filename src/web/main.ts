import { roomIdPattern } from '../protocol/room-code.js';
import { announce } from './announce.js';
import { roomApi } from './api.js';
import { arrivalScreen, describe } from './arrival.js';
import { Devices } from './devices.js';
import { embedBridge } from './embed-bridge.js';
import { button, el, show } from './dom.js';
import { linkHint } from './join-link.js';
import { logoutTarget } from './logout-target.js';
import { meetingView } from './meeting.js';
import { cameBack } from './removal.js';
import { forgetRequest, madeRequest } from './request-memory.js';
import { arrivalRooms } from './room-address.js';
import { storedGet, storedRemove, storedSet } from './stored.js';
import { rememberedRequest, waitingScreen } from './waiting.js';
import { language, withLanguage, words } from './words/index.js';

const app = document.getElementById('app')!;
// The HTML is the same for everyone; the page speaks the chosen language from its first script on.
document.documentElement.lang = language;
document.title = words.page.title;
app.querySelector('p')?.replaceChildren(words.page.loading);
// The id as it stands, then the readable id a code typed with spaces or capitals stands for (issue 32 point 5).
const [addressed = '', ...otherRooms] = arrivalRooms(location.pathname.split('/')[2] ?? '');
let roomId = addressed;
/**
 * The join link she came with, kept by this tab (the address drops it on entering): leaving is
 * not losing it, so "Rejoin", and a reload inside the meeting, bring her back with the same role
 * (issue 31: a teacher who left or reloaded her lesson was put in her own waiting room).
 */
const linkKey = (room: string) => `meet.link.${room}`;
const linkInAddress = new URLSearchParams(location.search).get('t');
const devices = new Devices();
// Read before the address is rewritten: the fragment names the embedding page.
const embed = embedBridge(roomId, devices);
// Inside a frame the address keeps the token (see enterMeeting), so only a plain page falls back on the kept one.
const joinToken = linkInAddress ?? (embed ? null : storedGet('session', linkKey(addressed)));
/**
 * The platform's page to go back to after leaving (the join link's logoutURL), kept by this tab
 * like the link itself so a reload inside the meeting keeps it; not inside a frame, where the
 * embedding page decides (readyToClose).
 */
const logoutKey = `meet.logout.${addressed}`;
if (linkInAddress) storedSet('session', logoutKey, logoutTarget(location.search) ?? '');
const logoutURL = embed ? null : logoutTarget(location.search) || storedGet('session', logoutKey) || null;
const sessions = new Map<string, string>();
let closeMeeting: (() => void) | null = null;

function focusHeading(): void {
  app.querySelector<HTMLElement>('h1, h2')?.setAttribute('tabindex', '-1');
  app.querySelector<HTMLElement>('h1, h2')?.focus();
}

const keptLink = (): string | null => joinToken ?? storedGet('session', linkKey(roomId));

/** A final screen: what happened, the way back, and the camera and microphone released. */
function message(text: string, again = false, rejoinAs: string | null = null): void {
  devices.stop();
  // Inside a frame the address keeps the join token and the fragment (see enterMeeting): the
  // way back reloads it, since a link to the bare path could no longer be framed.
  const label = again ? words.page.askToJoinAgain : words.page.backToStart;
  const back = embed
    ? button(label, () => location.reload())
    : el('a', { href: withLanguage(location.pathname), text: label });
  const rejoin =
    rejoinAs !== null && !embed
      ? button(words.page.rejoin, () => void rejoinWith(rejoinAs), { class: 'primary' })
      : null;
  show(app, el('h1', { text }), el('p', {}, rejoin, rejoin ? ' ' : null, back));
  // Out of the meeting: the title no longer names its room.
  document.title = text;
  announce(text);
  focusHeading();
}

/** Rejoin: the same arrival again, with the kept link and the name she had; a bare arrival starts afresh. */
async function rejoinWith(name: string): Promise<void> {
  const link = keptLink();
  if (!link) return location.assign(withLanguage(location.pathname));
  const result = await roomApi.start(roomId, { name, t: link });
  if (!result.ok) return message(describe(result.error.code, { retryAfter: result.error.retryAfter }));
  if (result.body.status === 'joined') {
    await devices.start();
    return enterMeeting(roomId, result.body.session);
  }
  waitFor(name, '', false, false, true);
}

/**
 * The device check before she enters where no arrival screen showed it (a reload back into the
 * meeting, an embedded arrival): camera, microphone, their on/off switches, speaker and
 * background, and Join. She enters as the switches say.
 */
function checkDevices(): Promise<void> {
  return new Promise((resolve) => {
    const join = el('button', { type: 'submit', class: 'primary', text: words.arrival.join });
    const form = el(
      'form',
      { 'aria-labelledby': 'check-heading' },
      el('h1', { id: 'check-heading', text: words.arrival.ready }),
      join,
    );
    form.addEventListener('submit', (event) => {
      event.preventDefault();
      join.disabled = true;
      resolve();
    });
    show(app, el('div', { class: 'two-parts' }, form, devices.render()));
    void devices.start();
    focusHeading();
  });
}

/** A live socket of her session that reads nothing: she stays present in the meeting while it is open. */
function holdPlace(session: string): WebSocket {
  const scheme = location.protocol === 'https:' ? 'wss' : 'ws';
  return new WebSocket(
    `${scheme}://${location.host}/room/${encodeURIComponent(roomId)}/live?session=${encodeURIComponent(session)}`,
  );
}

/** The waiting screen; `knockNow` asks to join at once (the arrival's one button already said so). */
function waitFor(
  name: string,
  accessCode: string,
  alreadyWaiting: boolean,
  lost = false,
  knockNow = false,
  note?: string,
): void {
  show(
    app,
    waitingScreen({
      roomId,
      name,
      accessCode,
      joinToken: keptLink(),
      devices,
      resumed: alreadyWaiting,
      lost,
      knockNow,
      ...(note === undefined ? {} : { note }),
      admitted: (session) => enterMeeting(roomId, session),
    }),
  );
  void devices.start();
  if (!knockNow) focusHeading();
}

function enterMeeting(room: string, session: string): void {
  closeMeeting?.();
  sessions.set(room, session);
  if (joinToken) storedSet('session', linkKey(roomId), joinToken);
  // The address names the room she is in, and no longer carries the join token. Not inside
  // an embedding page's frame: there a reload needs the token (it is what lets that page frame
  // this one, frame-ancestors) and the fragment (the parent's origin), and nobody sees the
  // frame's address; a reload there comes back to the home room.
  if (!embed) history.replaceState(null, '', withLanguage(`/room/${encodeURIComponent(room)}`));
  const view = meetingView({
    roomId: room,
    session,
    devices,
    sessions,
    homeRoomId: roomId,
    switchTo: (next, nextSession) => enterMeeting(next, nextSession),
    left: (text, reason) => {
      closeMeeting = null;
      // Her admission is spent once she hung up or the meeting ended; a lost connection or a
      // restart keeps it, since the page then reloads back into the meeting.
      if (reason !== 'lost') forgetRequest(roomId);
      // Removed: the link she came with no longer brings her straight back; she asks again.
      if (reason === 'removed') storedRemove('session', linkKey(roomId));
      // Hung up, or the meeting ended: back to the platform she came from, as upstream sends her.
      if (logoutURL && (reason === 'hangup' || reason === 'ended')) {
        devices.stop();
        return location.assign(logoutURL);
      }
      // Removed: her session is spent; the way back is the arrival, where she asks again. Hung
      // up: "Rejoin" comes back as she came, with the name of her session.
      message(text, reason === 'removed', reason === 'hangup' ? (linkHint(session).name ?? '') : null);
    },
    hooks: embed?.hooks,
  });
  embed?.attach(room, view.actions);
  closeMeeting = view.close;
  show(app, view.element);
  // The keyboard starts on the toolbar's first control, not lost on the page's body.
  view.element.querySelector<HTMLElement>('[role="toolbar"] button:not([disabled])')?.focus();
}

async function main(): Promise<void> {
  let exists = await roomApi.exists(roomId, joinToken);
  // `/room/ABCDEFGHIJ`: the readable id is asked for only when the id as typed is no room. A
  // join link and an embedding page name their room exactly.
  for (const other of joinToken || embed ? [] : otherRooms) {
    if (exists.ok || exists.error.status !== 404) break;
    roomId = other;
    exists = await roomApi.exists(roomId, null);
  }
  // The address names the room as its id is written (`/room/abc-defg-hij`), keeping `t` and `lang`.
  if (!embed && roomIdPattern.test(roomId) && location.pathname !== `/room/${encodeURIComponent(roomId)}`)
    history.replaceState(null, '', `/room/${encodeURIComponent(roomId)}${location.search}`);
  // Not found may still be a room that shows itself only to its invitation (a platform's
  // meeting someone shared the address of): the arrival answers for it, or says it is not there.
  if (!exists.ok && exists.error.status !== 404) return message(words.page.unreachable);
  const needsCode = exists.ok && exists.body.access_code;
  // A reload while waiting (or in the meeting she was let into): the cookie still names her
  // request. Asked only when this tab knocked here: otherwise there is nothing to ask about.
  const resumed = madeRequest(roomId) ? await roomApi.poll(roomId) : null;
  // The page's own reload after the service restarted goes straight back; her reload is an arrival, with the device check.
  const check = !cameBack() && (!embed || embed.deviceCheck);
  if (resumed?.ok && resumed.body.status === 'admitted') {
    if (check) {
      // Her place while she checks: the server counts a closed socket as gone after 5 s, so a
      // socket of hers stays open, unread, until the meeting's own replaces it.
      const place = holdPlace(resumed.body.session);
      await checkDevices().finally(() => window.setTimeout(() => place.close(), 10_000));
    }
    await devices.start();
    return enterMeeting(roomId, resumed.body.session);
  }
  if (resumed?.ok && resumed.body.status === 'barred') return message(describe('barred'));
  if (resumed?.ok && resumed.body.status === 'waiting') return waitFor('', '', true);
  // A reopened tab whose place the server let go meanwhile: "Ask again" with what she typed. Not
  // where a code is needed, since the code is not kept: the arrival asks for it again.
  if (resumed && !resumed.ok && resumed.error.status === 404 && !needsCode && !embed && rememberedRequest(roomId)?.name)
    return waitFor('', '', false, true);
  // A link that no longer lets her in says so now, before any name step ("Joining as …" would promise too much).
  // One this tab kept (not in the address) is let go instead: the bare arrival, as for anyone.
  if (joinToken && !embed && (exists.ok ? exists.body.link_valid === false : exists.error.status === 404)) {
    if (linkInAddress) return message(describe('join_token_invalid'));
    storedRemove('session', linkKey(roomId));
    return location.reload();
  }
  // Embedded, the person is known by the embedding page: no arrival screen unless it is needed,
  // but the device check first unless the embedding page turned its pre-join screen off.
  if (embed && check && embed.knowsArrival(joinToken, needsCode)) await checkDevices();
  const arrived = embed ? await embed.arrive(roomId, joinToken, needsCode) : null;
  if (arrived && 'joined' in arrived) {
    await devices.start();
    return enterMeeting(roomId, arrived.joined.session);
  }
  if (arrived) return waitFor(arrived.waiting, '', true);

  const arrival = arrivalScreen(roomId, needsCode, joinToken, (outcome) => {
    if (outcome.joined) {
      void devices.start().then(() => enterMeeting(roomId, outcome.joined!.session));
    } else {
      // One button: the arrival's Join already asks to join where she must wait.
      waitFor(outcome.name, outcome.accessCode, false, false, true, outcome.note);
    }
  });
  // The device check beside the arrival: whoever enters directly (a moderator, an open room) has seen hers too.
  show(app, el('div', { class: 'two-parts' }, arrival, devices.render()));
  void devices.start();
  focusHeading();
}

void main();
