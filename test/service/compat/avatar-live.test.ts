// Issue 33 point 8: a meeting-API join's avatarURL (carried in her join token as `avatar`) reaches
// everyone in the meeting as her participant record's `avatar_url`: in the welcome's list of
// those present and in participant_joined. A person without one has no such field.
// Issue 33 (the lead's gap A): a guest=true join that waits keeps her picture with her request
// (never shown in the waiting list) and has it once admitted.
import WebSocket from 'ws';
import t from 'tap';
import { compatAppFor } from '../../helpers/compat-app.js';
import { ConfapiClient, roomAndToken, startWithToken } from '../../helpers/compat.js';
import { textOf } from '../../helpers/live.js';
import { asSession, Browser } from '../../helpers/waiting.js';

const secret = 'avatar-live-secret-4d2c91ab';
const picture = 'https://lms.example.org/pictures/tina.png';

type Message = { type: string } & Record<string, any>;

/** A live socket and the first message of a type it got (waiting on arrival, never a fixed sleep). */
async function connect(wsBase: string, roomId: string, session: string) {
  const received: Message[] = [];
  let wake = () => {};
  const ws = new WebSocket(`${wsBase}/room/${encodeURIComponent(roomId)}/live?session=${encodeURIComponent(session)}`);
  ws.on('message', (data) => {
    received.push(JSON.parse(textOf(data)) as Message);
    wake();
  });
  await new Promise<void>((resolve, reject) => {
    ws.once('open', () => resolve());
    ws.once('error', reject);
  });
  const next = async (type: string): Promise<Message> => {
    const deadline = Date.now() + 5000;
    for (;;) {
      const found = received.find((m) => m.type === type);
      if (found) return found;
      if (Date.now() > deadline) throw new Error(`no ${type}`);
      await new Promise<void>((resolve) => {
        wake = resolve;
        setTimeout(resolve, 50);
      });
    }
  };
  return { ws, next };
}

t.test("a join's avatarURL reaches the others' participant records", async (t) => {
  const d = await compatAppFor(t, { env: { COMPAT_API_SHARED_SECRET: secret }, listen: true });
  const api = new ConfapiClient(d.compatUrl, secret, 'sha256');
  await api.get('create', [['meetingID', 'avatars-1']]);
  const enter = async (fullName: string, role: string, more: [string, string][]) => {
    const joined = await api.get('join', [
      ['meetingID', 'avatars-1'],
      ['fullName', fullName],
      ['role', role],
      ['redirect', 'false'],
      ...more,
    ]);
    const { roomId, token } = roomAndToken(String(joined.xml.url));
    const entered = await startWithToken(d, roomId, token, fullName);
    const socket = await connect(d.url.replace(/^http/, 'ws'), roomId, entered.body.session);
    t.teardown(() => socket.ws.close());
    return socket;
  };
  const tina = await enter('Teacher Tina', 'MODERATOR', [['avatarURL', picture]]);
  const own = await tina.next('welcome');
  t.equal(own.self.avatar_url, picture, 'her own record carries it');

  const vic = await enter('Viewer Vic', 'VIEWER', []);
  const welcome = await vic.next('welcome');
  const listed = welcome.participants.find((p: { name: string }) => p.name === 'Teacher Tina');
  t.equal(listed?.avatar_url, picture, "a later arrival's welcome lists her with it");
  t.notOk('avatar_url' in welcome.self, 'no avatarURL, no field');

  const arrived = await tina.next('participant_joined');
  t.equal(arrived.participant.name, 'Viewer Vic');
  t.notOk('avatar_url' in arrived.participant, 'Vic has none');

  const pia = await enter('Pupil Pia', 'VIEWER', [['avatarURL', 'https://lms.example.org/pictures/pia.png']]);
  await pia.next('welcome');
  const joinedPia = await vic.next('participant_joined');
  t.equal(
    joinedPia.participant.avatar_url,
    'https://lms.example.org/pictures/pia.png',
    'participant_joined carries it',
  );
});

t.test('a waiting guest keeps her avatarURL and has it once admitted', async (t) => {
  const d = await compatAppFor(t, { env: { COMPAT_API_SHARED_SECRET: secret }, listen: true });
  const api = new ConfapiClient(d.compatUrl, secret, 'sha256');
  await api.get('create', [
    ['meetingID', 'avatars-2'],
    ['guestPolicy', 'ASK_MODERATOR'],
  ]);
  const link = async (fullName: string, more: [string, string][]) => {
    const joined = await api.get('join', [
      ['meetingID', 'avatars-2'],
      ['fullName', fullName],
      ['redirect', 'false'],
      ...more,
    ]);
    return { status: String(joined.xml.guestStatus), ...roomAndToken(String(joined.xml.url)) };
  };
  const mod = await link('Teacher Tina', [['role', 'MODERATOR']]);
  const entered = await startWithToken(d, mod.roomId, mod.token, 'Teacher Tina');
  const tina = await connect(d.url.replace(/^http/, 'ws'), mod.roomId, entered.body.session);
  t.teardown(() => tina.ws.close());
  await tina.next('welcome');

  const gina = await link('Gina Guest', [
    ['guest', 'true'],
    ['role', 'VIEWER'],
    ['avatarURL', picture],
  ]);
  t.equal(gina.status, 'WAIT', 'she waits');
  const browser = new Browser(d, gina.roomId);
  t.equal((await browser.knock({ name: 'typed', note: '', t: gina.token })).status, 202);
  const list = await asSession.list(d, mod.roomId, entered.body.session);
  t.equal(list.body.length, 1);
  t.notMatch(
    JSON.stringify(list.body),
    /pictures|avatar/,
    'the waiting list shows name and note only, as the spec says',
  );
  t.notMatch(JSON.stringify((await browser.poll()).body), /pictures|avatar/, 'so does her own poll');
  t.equal(
    (await asSession.admit(d, mod.roomId, entered.body.session, { request_id: list.body[0].request_id })).status,
    200,
  );
  const polled = await browser.poll();
  t.match(polled.body, { status: 'admitted', session: String });

  const own = await connect(d.url.replace(/^http/, 'ws'), gina.roomId, polled.body.session);
  t.teardown(() => own.ws.close());
  t.equal((await own.next('welcome')).self.avatar_url, picture, 'admitted, her own record carries it');
  const arrived = await tina.next('participant_joined');
  t.equal(arrived.participant.name, 'Gina Guest');
  t.equal(arrived.participant.avatar_url, picture, 'and everyone gets her picture');
});
