import t from 'tap';
import type { MediaBackend, MediaPeer } from '../../../../src/engine/live/media-port.js';
import { MeshSignallingRelay } from '../../../../src/media/mesh-relay.js';
import { closeCodes } from '../../../../src/protocol/live.js';
import { arrive, by } from '../../../helpers/engine-fixture.js';
import { LiveFixture, type Client } from '../../../helpers/live-fixture.js';

/** Ann, Bob and a moderator connected in r1. */
async function scene(f: LiveFixture): Promise<{ mod: Client; ann: Client; bob: Client }> {
  const mod = await f.connect(await f.enter('Mod', 'r1', true));
  const ann = await f.connect(await f.enter('Ann'));
  const bob = await f.connect(await f.enter('Bob'));
  return { mod, ann, bob };
}

t.test(
  'a moderator removes someone: she is told and closed with 4403, the others are told, the record says who',
  async (t) => {
    const f = new LiveFixture();
    const { mod, ann, bob } = await scene(f);
    const annId = ann.participant.participantId;
    mod.send({ type: 'remove', participant_id: annId });
    await f.settled();
    const removed = { type: 'removed', participant_id: annId, by: mod.participant.participantId };
    t.same(ann.conn.sent.at(-1), removed, 'her last message says she was removed, and by whom');
    t.same(ann.conn.closedWith, { code: closeCodes.removed, reason: 'a moderator removed you from the meeting' });
    for (const other of [mod, bob]) {
      t.same(
        other.conn.sent.slice(-2),
        [removed, { type: 'participant_left', participant_id: annId }],
        'the others: removed, then left',
      );
    }
    t.match(f.leftAt(ann.participant), /^\d{4}-/, 'her presence ended');
    t.match((await f.engine.meetings.timeline('r1')).at(-1), {
      kind: 'participant_removed',
      actor: { kind: 'participant', participantId: mod.participant.participantId, name: 'Mod' },
      subject: { participantId: annId, name: 'Ann' },
    });
    t.notOk(
      f.hub.attendees('r1').some((a) => a.participantId === annId),
      'no longer an attendee',
    );
    f.disconnect(ann);
    t.equal(f.timers.size, 0, 'her socket closing afterwards starts no grace');
    t.equal(mod.conn.of('error').length, 0);
  },
);

t.test('the old session brings nobody back: not on reconnect, not after a restart (kill -9)', async (t) => {
  const f = new LiveFixture();
  const { mod, ann } = await scene(f);
  mod.send({ type: 'remove', participant_id: ann.participant.participantId });
  await f.settled();
  await t.rejects(f.connect(ann.participant), /4401/, 'a reconnect with her session is refused');
  f.engine.restart();
  f.build();
  t.match(f.leftAt(ann.participant), /^\d{4}-/, 'on disk');
  await t.rejects(f.connect(ann.participant), /4401/, 'refused after the restart too');
  t.match((await f.engine.meetings.timeline('r1')).at(-1), { kind: 'participant_removed' });
});

t.test(
  'admitted from the waiting room and removed: her cookie finds nothing, she knocks again like a new arrival',
  async (t) => {
    const f = new LiveFixture();
    f.room({ roomId: 'w', waitingRoom: 'all' });
    const mod = await f.connect(await f.enter('Mod', 'w', true));
    const knock = await f.engine.waiting.knock(arrive('w', 'Ann'));
    if (knock.status !== 'waiting') throw new Error('expected to wait');
    await f.engine.waiting.admit('w', knock.requestId, by(mod.participant.participantId));
    const polled = await f.engine.waiting.poll('w', knock.secret);
    if (polled?.status !== 'admitted') throw new Error('expected admitted');
    const ann = await f.connect(polled.participant);
    mod.send({ type: 'remove', participant_id: ann.participant.participantId });
    await f.settled();
    t.equal(
      await f.engine.waiting.poll('w', knock.secret),
      null,
      'the admission is spent: no session from the kept cookie',
    );
    f.engine.restart();
    f.build();
    t.equal(await f.engine.waiting.poll('w', knock.secret), null, 'still spent after a restart');
    const again = await f.engine.waiting.knock(arrive('w', 'Ann'));
    t.equal(again.status, 'waiting', 'she waits again: removal is not a bar, and not a way in either');
  },
);

t.test('who may remove whom: abuse is refused with the live codes and changes nothing', async (t) => {
  const f = new LiveFixture();
  const { mod, ann, bob } = await scene(f);
  f.room({ roomId: 'r2' });
  const elsewhere = await f.enter('Eve', 'r2');
  const cases: [Client, Record<string, unknown>, string][] = [
    [ann, { type: 'remove', participant_id: bob.participant.participantId }, 'not_moderator'],
    [mod, { type: 'remove', participant_id: 'no-such-participant' }, 'participant_not_found'],
    [mod, { type: 'remove', participant_id: elsewhere.participantId }, 'participant_not_found'],
    [mod, { type: 'remove', participant_id: mod.participant.participantId }, 'invalid_field'],
    [mod, { type: 'remove' }, 'invalid_message'],
    [mod, { type: 'remove', participant_id: 7 }, 'invalid_message'],
    [mod, { type: 'remove', participant_id: '' }, 'invalid_message'],
  ];
  for (const [client, message, code] of cases) {
    client.send(message);
    t.equal(client.conn.last('error')?.code, code, `${JSON.stringify(message)} from ${client.participant.name}`);
  }
  for (const p of [mod.participant, ann.participant, bob.participant, elsewhere])
    t.equal(f.leftAt(p), null, `${p.name} is still present`);
  t.equal(ann.conn.of('removed').length, 0);
  t.notOk(
    (await f.engine.meetings.timeline('r1')).some((e) => e.kind === 'participant_removed'),
    'nothing recorded',
  );
});

t.test('a second removal of the same person is refused, and a flood is cut by the settings window', async (t) => {
  const f = new LiveFixture({ live: { settingsLimit: { count: 2, windowMs: 10_000 } } });
  const { mod, ann, bob } = await scene(f);
  const carl = await f.connect(await f.enter('Carl'));
  mod.send({ type: 'remove', participant_id: ann.participant.participantId });
  await f.settled();
  mod.send({ type: 'remove', participant_id: ann.participant.participantId });
  await f.settled();
  t.equal(mod.conn.last('error')?.code, 'participant_not_found', 'she is gone already');
  mod.send({ type: 'remove', participant_id: bob.participant.participantId });
  await f.settled();
  t.equal(mod.conn.last('error')?.code, 'rate_limited', 'beyond the window');
  t.equal(f.leftAt(bob.participant), null, 'the refused removal removed nobody');
  f.engine.clock.advance(10_000);
  mod.send({ type: 'remove', participant_id: carl.participant.participantId });
  await f.settled();
  t.same(carl.conn.closedWith?.code, closeCodes.removed, 'the next window admits it');
  t.equal((await f.engine.meetings.timeline('r1')).filter((e) => e.kind === 'participant_removed').length, 2);
});

t.test('a moderator may remove another moderator, and someone whose socket is down within the grace', async (t) => {
  const f = new LiveFixture({ live: { leaveGraceMs: 5_000 } });
  const { mod, ann } = await scene(f);
  const second = await f.connect(await f.enter('Co', 'r1', true));
  f.disconnect(ann);
  mod.send({ type: 'remove', participant_id: ann.participant.participantId });
  await f.settled();
  t.match(f.leftAt(ann.participant), /^\d{4}-/);
  t.equal(f.timers.size, 0, 'her pending leave is gone');
  t.equal(mod.conn.last('removed')?.participant_id, ann.participant.participantId, 'the others are told');
  mod.send({ type: 'remove', participant_id: second.participant.participantId });
  await f.settled();
  t.equal(second.conn.closedWith?.code, closeCodes.removed);
});

t.test('the media side lets her go at once', async (t) => {
  const gone: MediaPeer[] = [];
  const f = new LiveFixture({
    media: (context) => {
      const mesh = new MeshSignallingRelay(context);
      const recording: MediaBackend = {
        name: 'recording',
        kindFor: (id) => mesh.kindFor(id),
        relaySignal: (from, to, data) => mesh.relaySignal(from, to, data),
        connected: (peer) => mesh.connected(peer),
        disconnected: (peer) => {
          gone.push(peer);
          mesh.disconnected(peer);
        },
        locksChanged: (id, locks) => mesh.locksChanged(id, locks),
        meetingEnded: (id) => mesh.meetingEnded(id),
      };
      return recording;
    },
  });
  const { mod, ann } = await scene(f);
  mod.send({ type: 'remove', participant_id: ann.participant.participantId });
  await f.settled();
  t.same(
    gone.map((p) => p.participantId),
    [ann.participant.participantId],
  );
  const offer = { description: { type: 'offer', sdp: 'v=0\r\n' } };
  mod.conn.clear();
  mod.send({ type: 'signal', to: ann.participant.participantId, data: offer });
  t.equal(ann.conn.of('signal').length, 0, 'nothing reaches her any more');
});
