// Over a real socket of the whole daemon: frames a client sends the moment its socket opens
// (before any welcome could reach it) are handled after its welcome, in order, and none is lost.
import t from 'tap';
import WebSocket from 'ws';
import { call, dataDirFor } from '../../helpers/api.js';
import { inProcessDaemonFor } from '../../helpers/in-process-daemon.js';
import { connectLive, LiveClient, liveUrl } from '../../helpers/live.js';
import { admittedSession, createRoom, moderator } from '../../helpers/waiting.js';

t.test('a rename and a chat message sent as the socket opens come after its welcome, in order', async (t) => {
  const d = await inProcessDaemonFor(t, dataDirFor(t));
  await createRoom(t, d, { room_id: 'room', name: 'Room', waiting_room: 'off' });
  const mod = await moderator(d, 'room', 'Mallory');
  const m = await connectLive(d, 'room', mod.session);
  const started = await call(d, '/room/room/start', { method: 'POST', token: null, json: { name: 'Ann' } });
  const ann = admittedSession(started, 'Ann');

  const socket = new WebSocket(liveUrl(d, 'room', ann.session));
  const a = new LiveClient(socket);
  t.teardown(() => socket.close());
  socket.once('open', () => {
    // The same tick as the open: the server is still reading what the welcome tells.
    a.send({ type: 'rename', name: 'Ann Smith' });
    a.send({ type: 'chat', text: 'first' });
    a.send({ type: 'chat', text: 'second' });
  });
  await a.next('chat', (c) => c.message.text === 'second');
  const kinds = a.received.map((message) => message.type);
  t.equal(kinds[0], 'welcome', 'her welcome is the first message she gets');
  t.same(
    a.received.flatMap((message) => (message.type === 'chat' ? [message.message.text] : [])),
    ['first', 'second'],
    'no frame was dropped, and they were handled in the order sent',
  );
  t.same(
    [await m.client.next('chat'), await m.client.next('chat')].map((c) => [c.message.from.name, c.message.text]),
    [
      ['Ann Smith', 'first'],
      ['Ann Smith', 'second'],
    ],
    'the room got them under the name she set first',
  );
});
