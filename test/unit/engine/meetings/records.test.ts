import t from 'tap';
import { attendanceCsv } from '../../../../src/engine/meetings/attendance.js';
import { Fixture, api, arrive, by } from '../../../helpers/engine-fixture.js';

t.test('the timeline records every transition with time, actor and subject', async (t) => {
  // A grace of 6 s (SERVICE_WAITING_CLOSED_WINDOW_SECS=6): E's window closes before her request expires.
  const f = new Fixture({ waiting: { closedWindowMs: 6000 } });
  f.room({ waitingRoomTimeoutSecs: 30 });
  const mod = await f.moderator('r1', 'Maria');
  const a = await f.knock('A');
  const b = await f.knock('B');
  const c = await f.knock('C');
  const d = await f.knock('D');
  await f.knock('E');
  await f.waiting.admit('r1', a.requestId, by(mod.participantId));
  await f.waiting.refuse('r1', b.requestId, false, by(mod.participantId));
  await f.waiting.refuse('r1', c.requestId, true, api('moodle'));
  await f.waiting.withdraw('r1', d.secret);
  f.clock.advance(6000); // E stops polling
  await f.waiting.sweep();
  const g = await f.knock('G');
  f.clock.advance(2000);
  await f.waiting.poll('r1', g.secret);
  await f.waiting.admitAll('r1', by(mod.participantId));
  const h = await f.knock('H');
  for (let i = 0; i < 15; i++) {
    f.clock.advance(2000);
    await f.waiting.poll('r1', h.secret);
  }
  await f.waiting.disableWaitingRoom('r1', by(mod.participantId));
  const timeline = await f.meetings.timeline('r1');
  t.same(
    timeline.map((x) => [x.kind, x.actor?.name ?? null, x.subject?.name ?? null]),
    [
      ['moderator_arrived', null, 'Maria'],
      ['knock', null, 'A'],
      ['knock', null, 'B'],
      ['knock', null, 'C'],
      ['knock', null, 'D'],
      ['knock', null, 'E'],
      ['admit', 'Maria', 'A'],
      ['refuse', 'Maria', 'B'],
      ['bar', 'moodle', 'C'],
      ['withdraw', null, 'D'],
      ['window_closed', null, 'E'],
      ['knock', null, 'G'],
      ['admit_all', 'Maria', null],
      ['knock', null, 'H'],
      ['expire', null, 'H'],
      ['waiting_room_disabled', 'Maria', null],
    ],
  );
  t.ok(
    timeline.every((x) => /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/.test(x.at)),
    'ISO times',
  );
  t.equal(timeline.find((x) => x.kind === 'window_closed')?.at, '2030-01-01T09:00:06.000Z');
  t.equal(timeline.find((x) => x.kind === 'admit_all')?.count, 1);
  t.notOk(JSON.stringify(timeline).includes(a.secret), 'no secret in the timeline');
});

t.test(
  'attendance: participants with join and leave, then refused people; the never-admitted appear nowhere else',
  async (t) => {
    const f = new Fixture();
    f.room();
    const mod = await f.moderator('r1', 'Maria');
    const ann = await f.knock('Ann');
    const bob = await f.knock('Bob');
    const eve = await f.knock('=HYPERLINK("http://evil")');
    await f.knock('Withdrawn');
    f.clock.advance(1000);
    await f.waiting.admit('r1', ann.requestId, by(mod.participantId));
    await f.waiting.refuse('r1', bob.requestId, false, by(mod.participantId));
    f.clock.advance(1000);
    await f.waiting.refuse('r1', eve.requestId, true, by(mod.participantId));
    const annId = f.meetings.present('r1').find((p) => p.name === 'Ann')!.participantId;
    f.clock.advance(1000);
    await f.meetings.leave(annId);

    const attendance = await f.meetings.attendance('r1');
    t.same(
      attendance.participants.map((p) => [p.name, p.role, p.joinedAt, p.leftAt]),
      [
        ['Maria', 'moderator', '2030-01-01T09:00:00.000Z', null],
        ['Ann', 'participant', '2030-01-01T09:00:01.000Z', '2030-01-01T09:00:03.000Z'],
      ],
    );
    t.same(
      attendance.refused.map((r) => [r.name, r.refusedAt, r.barred]),
      [
        ['Bob', '2030-01-01T09:00:01.000Z', false],
        ['=HYPERLINK("http://evil")', '2030-01-01T09:00:02.000Z', true],
      ],
    );
    t.equal(attendance.meeting.roomId, 'r1');

    const csv = attendanceCsv(attendance);
    t.equal(
      csv,
      [
        'name,role,status,joined_at,left_at,refused_at',
        'Maria,moderator,Attended,2030-01-01T09:00:00.000Z,,',
        'Ann,participant,Attended,2030-01-01T09:00:01.000Z,2030-01-01T09:00:03.000Z,',
        'Bob,,Refused,,,2030-01-01T09:00:01.000Z',
        `"'=HYPERLINK(""http://evil"")",,Refused,,,2030-01-01T09:00:02.000Z`,
        '',
      ].join('\r\n'),
      'refused at the bottom; a formula-looking name is made inert',
    );
    t.notOk(csv.includes('Withdrawn'), 'someone never admitted and never refused is not listed');
  },
);

t.test('attendance of an ended meeting is kept', async (t) => {
  const f = new Fixture();
  f.room({ waitingRoom: 'off' });
  await f.waiting.start(arrive('r1', 'Ann'));
  const meetingId = f.meetings.current('r1')!.meetingId;
  await f.meetings.end('r1');
  t.same(
    (await f.meetings.attendance('r1')).participants.map((p) => p.name),
    ['Ann'],
    'the latest meeting by default',
  );
  t.equal((await f.meetings.attendance('r1', meetingId)).meeting.endedAt, f.clock.now().toISOString());
});
