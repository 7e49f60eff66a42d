import t from 'tap';
import { call, dataDirFor } from '../../helpers/api.js';
import { inProcessDaemonFor } from '../../helpers/in-process-daemon.js';
import { statsIn } from '../../helpers/stored-stats.js';
import { connectLive, pause } from '../../helpers/live.js';
import { admittedSession, claimsOf, createRoom, moderator, withAdminToken } from '../../helpers/waiting.js';

// The daemon runs in the test's process (its start and stop are run.ts's, as SIGTERM runs them);
// what a kill -9 leaves running is in live-stats-kill.test.ts.

t.test(
  'the server derives audio, video, talk time, webcam intervals and chat counts, and keeps them across a restart',
  async (t) => {
    const dataDir = dataDirFor(t);
    const first = await inProcessDaemonFor(t, dataDir);
    await createRoom(t, first, { room_id: 'room', name: 'Room', waiting_room: 'off' });
    const mod = await moderator(first, 'room', 'Mallory');
    const ann = admittedSession(
      await call(first, '/room/room/start', { method: 'POST', token: null, json: { name: 'Ann' } }),
      'Ann',
    );
    const meetingId = String(claimsOf(ann.session).meeting);

    const m = await connectLive(first, 'room', mod.session);
    const a = await connectLive(first, 'room', ann.session);
    await m.client.next('participant_joined');

    // Ann: microphone and camera on, speaks twice, writes three messages, camera off and on again.
    a.client.send({ type: 'state', audio: true, video: true, screen: false });
    await m.client.next('state');
    a.client.send({ type: 'speaking', speaking: true });
    await m.client.next('speaking', (s) => s.speaking);
    await pause(400);
    a.client.send({ type: 'speaking', speaking: false });
    await m.client.next('speaking', (s) => !s.speaking);
    a.client.send({ type: 'speaking', speaking: true });
    await m.client.next('speaking', (s) => s.speaking);
    await pause(200);
    a.client.send({ type: 'speaking', speaking: false });
    await m.client.next('speaking', (s) => !s.speaking);
    for (const text of ['one', 'two', 'three']) {
      a.client.send({ type: 'chat', text });
      await m.client.next('chat', (c) => c.message.text === text);
    }
    a.client.send({ type: 'state', audio: true, video: false, screen: false });
    await m.client.next('state', (s) => !s.participant.video);
    a.client.send({ type: 'state', audio: true, video: true, screen: false });
    await m.client.next('state', (s) => s.participant.video);

    // The moderator claims to speak without audio: that is not talk time.
    m.client.send({ type: 'speaking', speaking: true });
    await pause(300);
    m.client.send({ type: 'speaking', speaking: false });
    m.client.send({ type: 'chat', text: 'sync' });
    await m.client.next('chat', (c) => c.message.text === 'sync');
    t.equal(a.client.all('speaking').length, 0, 'speaking without audio is not even broadcast');

    await first.stop();
    t.pass('first daemon stopped');

    // After a restart Ann reconnects with the same session and goes on.
    const second = withAdminToken(await inProcessDaemonFor(t, dataDir), first.adminToken);
    const a2 = await connectLive(second, 'room', ann.session);
    t.same(
      a2.welcome.chat.map((c) => c.text),
      ['one', 'two', 'three', 'sync'],
      'the chat of the meeting survived the restart',
    );
    a2.client.send({ type: 'state', audio: true, video: false, screen: false });
    await a2.client.next('state');
    a2.client.send({ type: 'chat', text: 'four' });
    await a2.client.next('chat');
    await a2.client.close();
    await second.stop();
    t.pass('second daemon stopped');

    const stats = await statsIn(dataDir, meetingId);
    const annStats = stats.find((s) => s.participantId === ann.participantId);
    const modStats = stats.find((s) => s.participantId === mod.participantId);
    t.ok(annStats && modStats, 'both participants have statistics');
    t.equal(annStats?.chatMessages, 4, "Ann's messages, before and after the restart");
    t.equal(modStats?.chatMessages, 1);
    t.ok(
      annStats!.talkTimeMs >= 550 && annStats!.talkTimeMs < 5_000,
      `talk time is the sum of the two intervals (${annStats?.talkTimeMs} ms)`,
    );
    t.equal(modStats?.talkTimeMs, 0, 'no talk time without audio');
    t.equal(annStats?.webcams.length, 2, 'two webcam intervals');
    for (const w of annStats?.webcams ?? []) {
      t.ok(
        w.endedAt !== null && Date.parse(w.endedAt) >= Date.parse(w.startedAt),
        `interval ${w.startedAt} .. ${w.endedAt} is closed`,
      );
    }
    t.same([annStats?.audio, annStats?.video], [false, false], 'nothing is on once her socket closed');
    t.ok(annStats?.lastTalkAt, 'the last talk is known');
  },
);
