import { announce } from './announce.js';
import { roomApi } from './api.js';
import { arrivalScreen, describe } from './arrival.js';
import { Devices } from './devices.js';
import { embedBridge } from './embed-bridge.js';
import { button, el, show } from './dom.js';
import { meetingView } from './meeting.js';
import { forgetRequest, madeRequest } from './request-memory.js';
import { rememberedRequest, waitingScreen } from './waiting.js';
import { language, withLanguage, words } from './words/index.js';

const app = document.getElementById('app')!;
// The HTML is the same for everyone; the page speaks the chosen language from its first script on.
document.documentElement.lang = language;
document.title = words.page.title;
app.querySelector('p')?.replaceChildren(words.page.loading);
const roomId = decodeURIComponent(location.pathname.split('/')[2] ?? '');
const joinToken = new URLSearchParams(location.search).get('t');
// Read before the address is rewritten: the fragment names the embedding page.
const embed = embedBridge(roomId);
const devices = new Devices();
const sessions = new Map<string, string>();
let closeMeeting: (() => void) | null = null;

function focusHeading(): void {
  app.querySelector<HTMLElement>('h1, h2')?.setAttribute('tabindex', '-1');
  app.querySelector<HTMLElement>('h1, h2')?.focus();
}

function message(text: string, again = false): void {
  // Inside a frame the address keeps the join token and the fragment (see enterMeeting): the
  // way back reloads it, since a link to the bare path could no longer be framed.
  const label = again ? words.page.askToJoinAgain : words.page.backToStart;
  const back = embed
    ? button(label, () => location.reload())
    : el('a', { href: withLanguage(location.pathname), text: label });
  show(app, el('h1', { text }), el('p', {}, back));
  // Out of the meeting: the title no longer names its room.
  document.title = text;
  announce(text);
  focusHeading();
}

function enterMeeting(room: string, session: string): void {
  closeMeeting?.();
  sessions.set(room, session);
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
      // The meeting is over for her: the camera and microphone are let go (their lights go out).
      if (reason === 'ended') devices.stop();
      // Removed: her session is spent; the way back is the arrival, where she asks again.
      message(text, reason === 'removed');
    },
    hooks: embed?.hooks,
  });
  embed?.attach(room, view.actions);
  closeMeeting = view.close;
  show(app, view.element);
}

async function main(): Promise<void> {
  const exists = await roomApi.exists(roomId, joinToken);
  // Not found may still be a room that shows itself only to its invitation (a platform's
  // meeting someone shared the address of): the arrival answers for it, or says it is not there.
  if (!exists.ok && exists.error.status !== 404) return message(words.page.unreachable);
  const needsCode = exists.ok && exists.body.access_code;
  // A reload while waiting (or in the meeting she was let into): the cookie still names her
  // request. Asked only when this tab knocked here: otherwise there is nothing to ask about.
  const resumed = madeRequest(roomId) ? await roomApi.poll(roomId) : null;
  if (resumed?.ok && resumed.body.status === 'admitted') {
    await devices.start();
    return enterMeeting(roomId, resumed.body.session);
  }
  if (resumed?.ok && resumed.body.status === 'barred') return message(describe('barred'));
  const waitFor = (name: string, accessCode: string, alreadyWaiting: boolean, lost = false) => {
    show(
      app,
      waitingScreen({
        roomId,
        name,
        accessCode,
        joinToken,
        devices,
        resumed: alreadyWaiting,
        lost,
        admitted: (session) => enterMeeting(roomId, session),
      }),
    );
    void devices.start();
    focusHeading();
  };
  if (resumed?.ok && resumed.body.status === 'waiting') return waitFor('', '', true);
  // A reopened tab whose place the server let go meanwhile: "Ask again" with what she typed. Not
  // where a code is needed, since the code is not kept: the arrival asks for it again.
  if (resumed && !resumed.ok && resumed.error.status === 404 && !needsCode && !embed && rememberedRequest(roomId)?.name)
    return waitFor('', '', false, true);
  // Embedded, the person is known by the embedding page: no arrival screen unless it is needed.
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
      waitFor(outcome.name, outcome.accessCode, false);
    }
  });
  // The device check beside the arrival: whoever enters directly (a moderator, an open room) has seen hers too.
  show(app, el('div', { class: 'two-parts' }, arrival, devices.render()));
  void devices.start();
  focusHeading();
}

void main();
