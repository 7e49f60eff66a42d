import t from 'tap';
import { Fixture, by } from '../../../helpers/engine-fixture.js';

/** A participant present in r1 (a room without a waiting room), as `start` lets her in. */
function participant(f: Fixture, name: string) {
  return f.transactions.atomically(async () => f.meetings.join(await f.meetings.ensure('r1'), 'participant', name));
}

t.test('a rename is checked by the rule of every arrival, written, and survives a restart', async (t) => {
  const f = new Fixture();
  f.room({ waitingRoom: 'off' });
  const ann = await participant(f, 'Ann');
  const writes = f.store.writes;
  const renamed = await f.meetings.rename(ann.participantId, '  Ann Smith  ');
  t.equal(renamed.changed, true);
  t.equal(renamed.participant.name, 'Ann Smith', 'trimmed as at arrival');
  t.ok(f.store.writes > writes, 'written before it returns');
  t.equal(f.meetings.participant(ann.participantId)?.name, 'Ann Smith');
  t.same(
    await f.meetings.rename(ann.participantId, 'Ann Smith'),
    { participant: renamed.participant, changed: false },
    'the same name changes nothing',
  );

  for (const bad of ['', ' ', 'x'.repeat(65), 'System', 'Eve (moderator)', 'A\u202Eb', 42, null]) {
    await t.rejects(
      () => f.meetings.rename(ann.participantId, bad),
      { code: 'invalid_field', field: 'name' },
      `refused: ${JSON.stringify(bad)}`,
    );
  }
  t.equal(f.meetings.participant(ann.participantId)?.name, 'Ann Smith', 'a refused name changes nothing');

  f.restart();
  t.equal(f.meetings.participant(ann.participantId)?.name, 'Ann Smith', 'kept across a restart (kill -9)');
  t.equal(
    (await f.meetings.attendance('r1')).participants[0]?.name,
    'Ann Smith',
    'attendance shows the name she chose',
  );
});

t.test('only a present participant renames herself', async (t) => {
  const f = new Fixture();
  f.room({ waitingRoom: 'off' });
  const ann = await participant(f, 'Ann');
  await f.meetings.leave(ann.participantId);
  await t.rejects(() => f.meetings.rename(ann.participantId, 'Back'), { code: 'participant_not_found' });
  await t.rejects(() => f.meetings.rename('forged', 'Back'), { code: 'participant_not_found' });
});

t.test('a failed commit keeps the old name, in memory and on disk', async (t) => {
  const f = new Fixture();
  f.room({ waitingRoom: 'off' });
  const ann = await participant(f, 'Ann');
  f.store.commitError = new Error('disk full');
  await t.rejects(() => f.meetings.rename(ann.participantId, 'Bea'), /disk full/);
  t.equal(f.meetings.participant(ann.participantId)?.name, 'Ann', 'in memory');
  f.store.commitError = null;
  f.restart();
  t.equal(f.meetings.participant(ann.participantId)?.name, 'Ann', 'on disk');
});

t.test('the subject: moderators only, checked, on the timeline, kept across a restart', async (t) => {
  const f = new Fixture();
  f.room({ waitingRoom: 'off' });
  const mod = await f.moderator();
  const ann = await participant(f, 'Ann');
  await t.rejects(() => f.meetings.setSubject('r1', by(ann.participantId), 'Mine now'), { code: 'not_moderator' });
  await t.rejects(() => f.meetings.setSubject('r1', by('forged'), 'Mine now'), { code: 'not_moderator' });
  t.equal(f.meetings.current('r1')?.subject, '', 'no subject at first');

  const set = await f.meetings.setSubject('r1', by(mod.participantId), '  <img src=x onerror=alert(1)>  ');
  t.equal(set.changed, true);
  t.equal(set.meeting.subject, '<img src=x onerror=alert(1)>', 'kept as typed: it is text, rendered as text');
  t.equal(
    (await f.meetings.setSubject('r1', by(mod.participantId), '<img src=x onerror=alert(1)>')).changed,
    false,
    'the same subject changes nothing',
  );
  t.match((await f.meetings.timeline('r1')).at(-1), { kind: 'subject_changed', actor: { name: 'Mod' } });

  for (const bad of ['x'.repeat(129), 'two\nlines', 'a\u202Eb', 'tag\u{E0041}', 7]) {
    await t.rejects(
      () => f.meetings.setSubject('r1', by(mod.participantId), bad),
      { code: 'invalid_field', field: 'subject' },
      `refused: ${JSON.stringify(bad)}`,
    );
  }
  t.equal(
    (await f.meetings.setSubject('r1', by(mod.participantId), 'é'.repeat(128))).meeting.subject.length,
    128,
    '128 characters fit',
  );

  f.restart();
  t.equal(f.meetings.current('r1')?.subject, 'é'.repeat(128), 'kept across a restart (kill -9)');
  t.equal((await f.meetings.setSubject('r1', by(mod.participantId), '')).meeting.subject, '', "'' clears it");
  await t.rejects(() => f.meetings.setSubject('r2', by(mod.participantId), 'x'), { code: 'meeting_not_found' });
});

t.test('a failed commit keeps the old subject', async (t) => {
  const f = new Fixture();
  f.room({ waitingRoom: 'off' });
  const mod = await f.moderator();
  await f.meetings.setSubject('r1', by(mod.participantId), 'Before');
  f.store.commitError = new Error('disk full');
  await t.rejects(() => f.meetings.setSubject('r1', by(mod.participantId), 'After'), /disk full/);
  t.equal(f.meetings.current('r1')?.subject, 'Before');
});
