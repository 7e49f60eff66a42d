// Issue 5 points 5, 7, 9, 10 with the live connection (src/http/live/): create's locks reach
// the room, getMeetingInfo reads audio/video from the live state, sendChatMessage reaches
// connected clients as System, end disconnects everyone.
import WebSocket from 'ws';
import t from 'tap';
import { compatAppFor } from '../../helpers/compat-app.js';
import { assertSuccess, attendeesOf, ConfapiClient, roomAndToken, startWithToken } from '../../helpers/compat.js';
import { textOf } from '../../helpers/live.js';

const secret = 'live-wiring-secret-91ab';

interface Message {
  type: string;
  [key: string]: any;
}

class Socket {
  readonly received: Message[] = [];
  readonly closed: Promise<number>;
  private wake: (() => void) | null = null;
  constructor(readonly ws: WebSocket) {
    ws.on('message', (data) => {
      this.received.push(JSON.parse(textOf(data)) as Message);
      this.wake?.();
    });
    this.closed = new Promise((resolve) => ws.once('close', (code) => resolve(code)));
  }
  async next(type: string, where: (m: Message) => boolean = () => true): Promise<Message> {
    const deadline = Date.now() + 5000;
    for (;;) {
      const found = this.received.find((m) => m.type === type && where(m));
      if (found) return found;
      if (Date.now() > deadline) throw new Error(`no ${type}; got ${JSON.stringify(this.received.map((m) => m.type))}`);
      await new Promise<void>((resolve) => {
        this.wake = resolve;
        setTimeout(resolve, 50);
      });
    }
  }
}

async function connect(wsBase: string, roomId: string, session: string): Promise<Socket> {
  const ws = new WebSocket(`${wsBase}/room/${encodeURIComponent(roomId)}/live?session=${encodeURIComponent(session)}`);
  const socket = new Socket(ws);
  await new Promise<void>((resolve, reject) => {
    ws.once('open', () => resolve());
    ws.once('error', reject);
  });
  return socket;
}

t.test('the meeting API over the live connection', async (t) => {
  const d = await compatAppFor(t, { env: { COMPAT_API_SHARED_SECRET: secret }, listen: true });
  const api = new ConfapiClient(d.compatUrl, secret, 'sha256', 'sorted');
  const created = await api.get('create', [
    ['meetingID', 'live-1'],
    ['lockSettingsDisableMic', 'true'],
    ['webcamsOnlyForModerator', 'true'],
    ['muteOnStart', 'true'],
  ]);
  assertSuccess(t, created, 'create with locks');
  const joined = await api.get('join', [
    ['meetingID', 'live-1'],
    ['fullName', 'Teacher'],
    ['role', 'MODERATOR'],
    ['redirect', 'false'],
  ]);
  const { roomId, token } = roomAndToken(joined.xml.url);
  const entered = await startWithToken(d, roomId, token);
  t.match(entered.body, { status: 'joined', role: 'moderator' });
  const socket = await connect(d.url.replace(/^http/, 'ws'), roomId, entered.body.session);
  t.teardown(() => socket.ws.close());
  const welcome = await socket.next('welcome');
  t.same(
    welcome.locks,
    { mic: true, cam: false, cams_moderators_only: true },
    "the create call's lock settings are the meeting's first locks",
  );
  t.equal(welcome.mute_on_start, true, 'muteOnStart reaches arrivals');

  socket.ws.send(JSON.stringify({ type: 'state', audio: true, video: true, screen: false }));
  await socket.next('state', (m) => m.participant?.audio === true);
  const info = (await api.get('getMeetingInfo', [['meetingID', 'live-1']])).xml;
  t.match(
    attendeesOf(info)[0],
    { fullName: 'Teacher', role: 'MODERATOR', hasJoinedVoice: 'true', hasVideo: 'true' },
    'audio and video from the live state',
  );
  t.equal(info.voiceParticipantCount, '1');
  t.equal(info.videoCount, '1');

  assertSuccess(
    t,
    await api.get('sendChatMessage', [
      ['meetingID', 'live-1'],
      ['message', 'Welcome <all>'],
    ]),
    'sendChatMessage',
  );
  const chat = await socket.next('chat');
  t.match(
    chat.message,
    { from: { participant_id: null, name: 'System' }, text: 'Welcome <all>' },
    'the connected client receives it from System',
  );

  assertSuccess(
    t,
    await api.get('end', [
      ['meetingID', 'live-1'],
      ['password', created.xml.moderatorPW],
    ]),
    'end',
  );
  await socket.next('ended');
  t.equal(await socket.closed, 4410, 'the live connection is closed: everyone is out');
});
