// Issue 34 point 2: the meeting API's store, one contract on both adapters (SQLite behind the
// asynchronous port, PostgreSQL's schema meet_compat): a meeting reads back whole, with every
// create parameter, over another connection (a second node answers a join without a new create);
// one open meeting per tenant and meetingID; orderings (same millisecond by insertion, text by
// bytes); chat, custom data and recordings; odd input; transactions and savepoints.
import type { CompatMeeting, RecordingRecord } from '../../../src/compat/confapi/model.js';
import { UnstorableText } from '../../../src/compat/store/postgres-store.js';
import { meeting } from '../../helpers/compat-meeting.js';
import { onEachCompatStore } from '../../helpers/compat-store-adapters.js';

const t0 = Date.parse('2030-01-01T09:00:00.000Z');

/** A meeting with every create parameter away from its default. */
const full = (): CompatMeeting =>
  meeting('uni-köln', 'Kurs 7 · Übung', t0, {
    roomId: 'cf-room-7',
    name: 'Übung: Analysis Ⅱ 🎓',
    attendeePw: 'ap-ß',
    moderatorPw: 'mp-λ',
    voiceBridge: '71234',
    dialNumber: '+49 221 0000',
    durationMin: 90,
    maxParticipants: 40,
    record: true,
    guestPolicy: 'ASK_MODERATOR',
    settings: {
      welcome: 'Willkommen <b>%%CONFNAME%%</b>',
      logoutURL: 'https://lms.example/kurs/7?x=1&y=2',
      muteOnStart: true,
      webcamsOnlyForModerator: true,
      lockSettings: { lockSettingsDisableCam: true, lockSettingsDisableMic: false },
      extra: { bannerText: 'Prüfung', moderatorOnlyMessage: 'nur für Lehrende' },
    },
    metadata: [
      ['bbb-origin', 'Moodle'],
      ['endcallbackurl', 'https://lms.example/end?id=7'],
    ],
    presentations: [
      { url: 'https://lms.example/a.pdf', filename: 'a.pdf', inline: false, size: 0 },
      { url: null, filename: 'inline.pdf', inline: true, size: 1234 },
    ],
  });

onEachCompatStore(
  'a meeting reads back whole over another connection (a node joins without a new create)',
  async (t, { store, another }) => {
    const m = full();
    await store.insertMeeting(m);
    const node = another();
    t.same(await node.meeting(m.internalId), m, 'by internal id, every parameter');
    t.same(await node.openMeeting(m.tenantId, m.meetingId), m, 'the open meeting of its tenant and meetingID');
    t.same(await node.latestMeeting(m.tenantId, m.meetingId), m);
    t.same(await node.openMeetingInRoom('cf-room-7'), m);
    t.equal(await node.openMeeting('other-tenant', m.meetingId), null);
    t.equal(await node.meeting('absent'), null);

    const started = { ...m, engineMeetingId: 'em-1', startTime: t0 + 5_000 };
    await node.updateMeeting(started);
    t.same(await store.meeting(m.internalId), started, 'an update on one node is read on the other');
    const ended: CompatMeeting = {
      ...started,
      endTime: t0 + 9_000_000_000,
      endReason: 'duration',
      forciblyEnded: true,
    };
    await store.updateMeeting(ended);
    t.equal(await node.openMeeting(m.tenantId, m.meetingId), null, 'ended: not open');
    t.equal(await node.openMeetingInRoom('cf-room-7'), null);
    t.same(await node.latestMeeting(m.tenantId, m.meetingId), ended, 'ended: still the latest');
    t.same(await node.endedRoomIds(), ['cf-room-7']);
    t.same(await node.openMeetings(), []);
  },
);

onEachCompatStore('one open meeting per tenant and meetingID; orderings alike', async (t, { store }) => {
  const a = meeting('t1', 'course', t0);
  const t2 = meeting('t2', 'course', t0);
  const b = meeting('B', 'course', t0 - 1);
  await store.insertMeeting(a);
  await t.rejects(store.insertMeeting({ ...meeting('t1', 'course', t0), internalId: 'dup' }), 'a second open one');
  await store.insertMeeting(t2);
  await store.insertMeeting(b);
  const owners = async (id: string) => [...(await store.ownersOf(id))].sort();
  t.same(await owners('course'), ['B', 't1', 't2'], 'tenants holding it open (a set: SQLite answers in index order)');
  // Ended, then created again in the same millisecond: the later insertion is the latest.
  await store.updateMeeting({ ...a, endTime: t0 + 1, endReason: 'end', forciblyEnded: true });
  const again = { ...meeting('t1', 'course', t0), internalId: 'again' };
  await store.insertMeeting(again);
  t.equal((await store.latestMeeting('t1', 'course'))?.internalId, 'again', 'same create time: by insertion');
  t.same(
    (await store.openMeetings()).map((m) => m.internalId),
    [b.internalId, t2.internalId, 'again'],
    'oldest first, then by insertion',
  );
  t.same(
    (await store.openMeetingsOf('t1')).map((m) => m.internalId),
    ['again'],
  );
  t.same(await owners('course'), ['B', 't1', 't2']);
  t.same(await owners('nothing'), []);
  t.same(await store.endedRoomIds(), ['cf-t1-course']);
});

onEachCompatStore('chat and custom data: in order, replaced per person, gone with their meeting', async (t, s) => {
  const { store } = s;
  const m = meeting('t', 'chat', t0);
  await store.insertMeeting(m);
  await store.appendChat({ internalId: m.internalId, at: t0 + 2, sender: 'System', text: 'zwei', delivered: false });
  await store.appendChat({ internalId: m.internalId, at: t0 + 1, sender: 'System', text: 'eins 🙂', delivered: true });
  t.same(
    (await store.chatOf(m.internalId)).map((c) => [c.at - t0, c.text, c.delivered]),
    [
      [2, 'zwei', false],
      [1, 'eins 🙂', true],
    ],
    'in the order appended',
  );
  await store.setCustomData(m.internalId, 'user-b', [['colour', 'blau']]);
  await store.setCustomData(m.internalId, 'user-a', [['x', '1']]);
  await store.setCustomData(m.internalId, 'user-b', [
    ['colour', 'grün'],
    ['size', 'L'],
  ]);
  t.same(
    [...(await s.another().customDataOf(m.internalId))],
    [
      ['user-a', [['x', '1']]],
      [
        'user-b',
        [
          ['colour', 'grün'],
          ['size', 'L'],
        ],
      ],
    ],
    'by person, a later join replacing the earlier',
  );
  await t.rejects(store.setCustomData('no-such-meeting', 'u', []), 'custom data belongs to a meeting');
  await store.deleteMeeting(m.internalId);
  t.same(await store.chatOf(m.internalId), [], 'the chat went with its meeting');
  t.same([...(await store.customDataOf(m.internalId))], [], 'the custom data too');
  t.equal(await store.meeting(m.internalId), null);
});

onEachCompatStore('recordings: newest first, filtered by meeting or record, updated, deleted', async (t, { store }) => {
  const rec = (recordId: string, meetingId: string, start: number): RecordingRecord => ({
    recordId,
    tenantId: 't',
    meetingId,
    internalId: `${meetingId}-int`,
    name: `Aufnahme ${recordId}`,
    published: true,
    protected: false,
    startTime: t0 + start,
    endTime: t0 + start + 60_000,
    participants: 3,
    metadata: [['gl-listed', 'true']],
  });
  for (const r of [rec('r-b', 'm1', 10), rec('r-a', 'm1', 10), rec('r-c', 'm2', 20), rec('r-X', 'm2', 5)])
    await store.insertRecording(r);
  await store.insertRecording({ ...rec('other', 'm1', 99), tenantId: 'other-tenant' });
  const ids = async (filter: Parameters<typeof store.recordings>[1]) =>
    (await store.recordings('t', filter)).map((r) => r.recordId);
  t.same(await ids({}), ['r-c', 'r-a', 'r-b', 'r-X'], 'newest first, then by id');
  t.same(await ids({ meetingIds: ['m2'] }), ['r-c', 'r-X']);
  t.same(await ids({ recordIds: ['r-b', 'r-c', 'other'] }), ['r-c', 'r-b']);
  const changed = { ...rec('r-a', 'm1', 10), name: 'neu', published: false, protected: true, metadata: [] };
  await store.updateRecording(changed);
  t.same((await store.recordings('t', { recordIds: ['r-a'] }))[0], changed);
  await store.deleteRecording('r-a');
  t.same(await ids({ meetingIds: ['m1'] }), ['r-b']);
});

onEachCompatStore('odd input: a 64 KB metadata value, non-ASCII, NUL characters', async (t, s) => {
  const { store, name } = s;
  const big = 'ä'.repeat(32 * 1024) + '𝄞'.repeat(8 * 1024);
  const odd = meeting('t', 'odd', t0, {
    name: 'مرحبا · 你好 · Ωμέγα',
    metadata: [
      ['big', big],
      ['nul', 'a\0b'],
      ['quote', `'"; DROP TABLE compat_meetings; --`],
    ],
  });
  await store.insertMeeting(odd);
  const back = await s.another().meeting(odd.internalId);
  t.same(back, odd, 'kept exactly (metadata is JSON: a NUL in it is escaped)');
  t.equal(back?.metadata[0]?.[1].length, big.length);

  const nulName = meeting('t', 'nul-name', t0, { name: 'vor\0nach' });
  if (name === 'SQLite') {
    await store.insertMeeting(nulName);
    t.same(await store.meeting(nulName.internalId), nulName, 'SQLite keeps a NUL in a text column');
  } else {
    await t.rejects(store.insertMeeting(nulName), new UnstorableText('compat_meetings.name'));
    await t.rejects(store.insertMeeting(nulName), /compat_meetings\.name holds a NUL character/);
    t.equal(await store.meeting(nulName.internalId), null, 'PostgreSQL refuses it, naming the column; nothing kept');
    await store.transaction(async () => {
      await t.rejects(
        store.appendChat({ internalId: odd.internalId, at: t0, sender: 'x', text: '\0', delivered: true }),
      );
      await store.appendChat({ internalId: odd.internalId, at: t0, sender: 'x', text: 'ok', delivered: true });
    });
    t.same(
      (await store.chatOf(odd.internalId)).map((c) => c.text),
      ['ok'],
      'refused before it is sent: the transaction goes on',
    );
  }
});

onEachCompatStore('transactions: all or nothing, a savepoint inside, others wait', async (t, { store, another }) => {
  const kept = meeting('t', 'kept', t0);
  await store.insertMeeting(kept);
  await t.rejects(
    store.transaction(async () => {
      await store.insertMeeting(meeting('t', 'lost', t0));
      await store.updateMeeting({ ...kept, name: 'renamed' });
      await store.insertCallback({
        kind: 'meeting_ended',
        tenantId: 't',
        internalId: kept.internalId,
        method: 'GET',
        url: 'https://lms.example/x',
        body: null,
        contentType: null,
        nextAt: t0,
        createdAt: t0,
      });
      throw new Error('the create failed');
    }),
    /the create failed/,
  );
  t.same(await store.meeting(kept.internalId), kept, 'the update was taken back');
  t.equal(await store.openMeeting('t', 'lost'), null, 'the insert too');
  t.same(await store.pendingCallbacks(), [], 'and the queued callback');

  await store.transaction(async () => {
    await store.insertMeeting(meeting('t', 'outer', t0));
    await t.rejects(
      store.transaction(async () => {
        await store.insertMeeting(meeting('t', 'inner', t0));
        throw new Error('inner');
      }),
    );
  });
  t.ok(await another().openMeeting('t', 'outer'), 'the outer transaction committed');
  t.equal(await another().openMeeting('t', 'inner'), null, 'the savepoint rolled back alone');

  // A read from outside while a transaction is open never sees its writes before COMMIT.
  let release!: () => void;
  const gate = new Promise<void>((resolve) => (release = resolve));
  const open = store.transaction(async () => {
    await store.insertMeeting(meeting('t', 'pending', t0));
    await gate;
  });
  t.equal(await another().openMeeting('t', 'pending'), null, 'another connection does not see it before COMMIT');
  release();
  await open;
  t.ok(await another().openMeeting('t', 'pending'), 'seen after');
});
