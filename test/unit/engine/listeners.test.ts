import t from 'tap';
import { Listeners } from '../../../src/engine/listeners.js';
import { Fixture, api, arrive, by } from '../../helpers/engine-fixture.js';
import { RecordingLog } from '../../helpers/recording-log.js';

const broken = (): never => {
  throw new Error('a broken listener');
};

t.test('emit runs every listener, logs a failing one under the event, and never throws', async (t) => {
  const log = new RecordingLog();
  const listeners = new Listeners<[value: number]>('something happened', log);
  const heard: string[] = [];
  listeners.add((v) => heard.push(`first ${v}`));
  listeners.add(broken);
  const off = listeners.add((v) => heard.push(`third ${v}`));
  t.doesNotThrow(() => listeners.emit(1));
  t.same(heard, ['first 1', 'third 1'], 'the listener after the failing one still ran');
  t.equal(log.entries.length, 1);
  t.equal(log.entries[0]?.event, 'something happened');
  t.match(log.entries[0]?.message, /something happened/);
  t.match(log.entries[0]?.err, { message: 'a broken listener' });
  off();
  listeners.emit(2);
  t.same(heard, ['first 1', 'third 1', 'first 2'], 'unsubscribed');
  t.equal(log.entries.length, 2);
});

t.test('a listener that awaits and fails (a promotion the store refused) is logged like one that throws', async (t) => {
  const log = new RecordingLog();
  const listeners = new Listeners<[]>('participant left', log);
  const heard: string[] = [];
  listeners.add(async () => {
    await Promise.resolve();
    throw new Error('disk full');
  });
  listeners.add(() => heard.push('next'));
  t.doesNotThrow(() => listeners.emit());
  t.same(heard, ['next'], 'the next listener ran at once');
  await new Promise((resolve) => setImmediate(resolve));
  t.equal(log.entries.length, 1, 'the rejection was logged, not left unhandled');
  t.equal(log.entries[0]?.event, 'participant left');
  t.match(log.entries[0]?.err, { message: 'disk full' });
});

t.test('a listener that unsubscribes itself while the event is told does not hide the others', async (t) => {
  const listeners = new Listeners<[]>('tick', new RecordingLog());
  const heard: string[] = [];
  const off = listeners.add(() => {
    heard.push('once');
    off();
  });
  listeners.add(() => heard.push('always'));
  listeners.emit();
  listeners.emit();
  t.same(heard, ['once', 'always', 'always']);
});

t.test('a failing participant-left listener neither undoes nor fails the leave', async (t) => {
  const f = new Fixture();
  f.room({ waitingRoom: 'off' });
  const joined = await f.waiting.start(arrive('r1', 'Ann'));
  if (joined.status !== 'joined') throw new Error('not joined');
  const pid = joined.participant.participantId;
  const heard: string[] = [];
  f.meetings.onLeft(broken);
  f.meetings.onLeft((p) => heard.push(p.participantId));
  f.clock.advance(1000);
  const left = await f.meetings.leave(pid);
  t.equal(left?.leftAt, f.clock.now().toISOString(), 'leave returns the left participant');
  t.equal(f.meetings.participant(pid)?.leftAt, f.clock.now().toISOString(), 'in memory');
  t.equal(f.store.participants.get(pid)?.leftAt, f.clock.now().toISOString(), 'on disk');
  t.same(heard, [pid], 'the other listener heard it');
  t.same(
    f.log.entries.map((e) => e.event),
    ['participant left'],
  );
});

t.test('a failing meeting-ended listener: the sweep ends the meeting and goes on', async (t) => {
  const f = new Fixture({ meetings: { emptyGraceMs: 60_000 } });
  f.room({ waitingRoom: 'off' });
  f.room({ roomId: 'r2', waitingRoom: 'off' });
  const ended: string[] = [];
  f.meetings.onEnded(broken);
  f.meetings.onEnded((m) => ended.push(m.roomId));
  for (const roomId of ['r1', 'r2']) {
    const joined = await f.waiting.start(arrive(roomId, 'Ann'));
    if (joined.status !== 'joined') throw new Error('not joined');
    await f.meetings.leave(joined.participant.participantId);
  }
  f.clock.advance(60_000);
  await t.resolves(() => f.waiting.sweep());
  t.same(ended.sort(), ['r1', 'r2'], 'both meetings ended, the second after the first one’s listener failed');
  t.equal(f.meetings.current('r1'), null);
  t.equal(f.meetings.current('r2'), null);
  t.ok(
    [...f.store.meetings.values()].every((m) => m.endedAt === f.clock.now().toISOString()),
    'ended on disk',
  );
  t.same(
    f.log.entries.map((e) => e.event),
    ['meeting ended', 'meeting ended'],
    'one entry per failed call, naming the event',
  );
});

t.test('a failing role-changed listener: the promotion stands', async (t) => {
  const f = new Fixture();
  f.room({ waitingRoom: 'off' });
  const joined = await f.waiting.start(arrive('r1', 'Ann'));
  if (joined.status !== 'joined') throw new Error('not joined');
  const pid = joined.participant.participantId;
  const roles: string[] = [];
  f.meetings.onRoleChanged(broken);
  f.meetings.onRoleChanged((p) => roles.push(p.role));
  t.equal((await f.meetings.promote(pid))?.role, 'moderator');
  t.equal(f.store.participants.get(pid)?.role, 'moderator', 'on disk');
  t.same(roles, ['moderator']);
  t.same(
    f.log.entries.map((e) => e.event),
    ['role changed'],
  );
});

t.test('failing waiting-room listeners: an admission and a switch stand', async (t) => {
  const f = new Fixture();
  f.room();
  const mod = await f.moderator();
  const ann = await f.knock('Ann');
  const changes: string[] = [];
  const switches: string[] = [];
  f.waiting.onWaitingListChange(broken);
  f.waiting.onWaitingListChange((roomId, change) => changes.push(`${roomId} -${change.removed.length}`));
  f.waiting.onWaitingRoomSwitched(broken);
  f.waiting.onWaitingRoomSwitched((roomId) => switches.push(roomId));

  await t.resolves(() => f.waiting.admit('r1', ann.requestId, api()));
  t.equal(f.store.requests.get(ann.requestId)?.state, 'admitted', 'admitted on disk');
  t.same(changes, ['r1 -1']);

  await t.resolves(() => f.waiting.disableWaitingRoom('r1', by(mod.participantId)));
  t.equal(f.meetings.current('r1')?.waitingDisabled, true, 'switched off');
  t.same(switches, ['r1']);
  t.same(
    f.log.entries.map((e) => e.event),
    ['waiting list changed', 'waiting room switched'],
  );
});
