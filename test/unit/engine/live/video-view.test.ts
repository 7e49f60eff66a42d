// Issue 18 point 6, the engine's part of "subscribe only to the video on screen": the page's
// `view` (whose video it shows, which one large) reaches the media backend with only the ids of
// members of her meeting, within its own rate window (fake clock); the mesh ignores it.
import t from 'tap';
import type { MediaBackend, MediaPeer, VideoView } from '../../../../src/engine/live/media-port.js';
import { MeshSignallingRelay } from '../../../../src/media/mesh-relay.js';
import { MediaRouter } from '../../../../src/media/media-router.js';
import { parseClientMessage } from '../../../../src/http/live/client-messages.js';
import { LiveFixture } from '../../../helpers/live-fixture.js';

function recordingBackend(): { backend: MediaBackend; views: { peer: MediaPeer; view: VideoView }[] } {
  const views: { peer: MediaPeer; view: VideoView }[] = [];
  const quiet = () => undefined;
  const backend: MediaBackend = {
    name: 'recording',
    kindFor: () => 'janus',
    relaySignal: () => ({ ok: true }),
    connected: quiet,
    disconnected: quiet,
    locksChanged: quiet,
    meetingEnded: quiet,
    view: (peer, view) => void views.push({ peer, view }),
  };
  return { backend, views };
}

t.test('a view names members of her meeting only, never herself; the large one counts as shown', async (t) => {
  const { backend, views } = recordingBackend();
  const f = new LiveFixture({ media: () => backend });
  const m = await f.connect(await f.enter('Mod', 'r1', true));
  const a = await f.connect(await f.enter('Ann'));
  const b = await f.connect(await f.enter('Ben'));
  f.room({ roomId: 'r2' });
  const elsewhere = await f.connect(await f.enter('Eve', 'r2'));
  const [mod, ann, ben, eve] = [m, a, b, elsewhere].map((c) => c.participant.participantId) as [
    string,
    string,
    string,
    string,
  ];

  a.send({ type: 'view', video: [mod, ann, eve, 'nobody', mod], large: ben });
  t.equal(views.length, 1);
  t.match(views[0]?.peer, { participantId: ann, roomId: 'r1', role: 'participant' }, 'told whose page it is');
  t.same(
    views[0]?.view,
    { video: [mod, ben], large: ben },
    'herself, another room, an unknown id and a repeat are dropped; large is shown',
  );
  a.send({ type: 'view', video: [], large: eve });
  t.same(views[1]?.view, { video: [], large: null }, 'a large id from outside the meeting is no large tile');
  a.send({ type: 'view', video: [ben] });
  t.same(views[2]?.view, { video: [ben], large: null });
  t.same(a.conn.of('error'), [], 'no error for ids that are ignored');

  f.disconnect(a);
  a.send({ type: 'view', video: [mod] });
  t.equal(views.length, 3, 'a closed connection says nothing any more');
});

t.test('a malformed view is refused in words and reaches nobody', async (t) => {
  const { backend, views } = recordingBackend();
  const f = new LiveFixture({ media: () => backend });
  const a = await f.connect(await f.enter('Ann'));
  for (const bad of [
    { type: 'view' },
    { type: 'view', video: 'everyone' },
    { type: 'view', video: [1, 2] },
    { type: 'view', video: Array.from({ length: 65 }, (_, i) => `p${i}`) },
    { type: 'view', video: ['x'.repeat(129)] },
    { type: 'view', video: [], large: 7 },
  ]) {
    a.conn.clear();
    a.send(bad);
    t.equal(a.conn.last('error')?.code, 'invalid_message', JSON.stringify(bad).slice(0, 60));
  }
  t.same(
    parseClientMessage(JSON.stringify({ type: 'view', video: [] })),
    { ok: true, message: { type: 'view', video: [] } },
    'an empty view is one',
  );
  t.equal(views.length, 0);
});

t.test('views have their own rate window: a flood is cut and said, the next window is open again', async (t) => {
  const { backend, views } = recordingBackend();
  const f = new LiveFixture({ media: () => backend, live: { viewLimit: { count: 3, windowMs: 10_000 } } });
  const m = await f.connect(await f.enter('Mod', 'r1', true));
  const a = await f.connect(await f.enter('Ann'));
  for (let i = 0; i < 5; i++) a.send({ type: 'view', video: [m.participant.participantId] });
  t.equal(views.length, 3, 'three pass');
  t.equal(a.conn.of('error').filter((e) => e.code === 'rate_limited').length, 2, 'the rest are refused in words');
  a.send({ type: 'chat', text: 'still here' });
  await f.settled();
  t.equal(m.conn.last('chat')?.message.text, 'still here', 'other messages are not cut by it');
  f.engine.clock.advance(10_000);
  a.send({ type: 'view', video: [] });
  t.equal(views.length, 4, 'a new window');
});

t.test('the mesh ignores a view; the router hands it to the backend of her meeting', async (t) => {
  const f = new LiveFixture();
  const m = await f.connect(await f.enter('Mod', 'r1', true));
  const a = await f.connect(await f.enter('Ann'));
  m.conn.clear();
  a.conn.clear();
  a.send({ type: 'view', video: [m.participant.participantId] });
  t.same([...a.conn.sent, ...m.conn.sent], [], 'a mesh meeting accepts it, and nobody hears of it');

  const sfu = recordingBackend();
  const mesh = new MeshSignallingRelay({
    peer: () => null,
    locks: () => ({ mic: false, cam: false, camsModeratorsOnly: false }),
    deliver: () => false,
    speaking: () => undefined,
  });
  const router = new MediaRouter(
    mesh,
    sfu.backend,
    () => true,
    () => 'meet1',
  );
  const peer: MediaPeer = { participantId: 'ann', roomId: 'r1', meetingId: 'meet1', role: 'participant' };
  router.view(peer, { video: ['ben'], large: null });
  t.same(sfu.views, [{ peer, view: { video: ['ben'], large: null } }], 'a meeting on the SFU: to the SFU');
});
