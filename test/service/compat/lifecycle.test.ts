// Issue 5 points 5, 7, 9-12, 14 in one process under a fake clock: duration, emptying and
// unused meetings end and fire the end callback; guestPolicy under each instance policy; the
// live-view seam (audio/video, System chat, locks); recordings and the recording-ready sender.
// Each test runs on both stores, SQLite and PostgreSQL (issue 34 point 5: service-stores.ts).
import { jwtVerify } from 'jose';
import type { Tap } from '../../helpers/api.js';
import type { MeetingLiveView } from '../../../src/compat/live-view.js';
import { compatAppFor, type CompatApp } from '../../helpers/compat-app.js';
import { FakeClock } from '../../helpers/fake-clock.js';
import { onEachServiceStore, type ServiceStore } from '../../helpers/service-stores.js';
import { injectFetch } from '../../helpers/inject-fetch.js';
import { assertFailed, assertSuccess, attendeesOf, ConfapiClient, receiverFor } from '../../helpers/compat.js';

const secret = 'lifecycle-secret-77c1e0';

interface Rig {
  readonly clock: FakeClock;
  readonly services: CompatApp['services'];
  readonly compat: CompatApp['compat'];
  readonly api: ConfapiClient;
}

/**
 * The daemon's engine and compat module in this process on the fake clock (compatAppFor's clock
 * mode: no timer of its own runs), with the compat module's timed work started as the daemon
 * starts it: its sweep compares open meetings with the fake time, and its callback queue sends.
 */
async function rig(t: Tap, store: ServiceStore, env: Record<string, string> = {}): Promise<Rig> {
  const clock = new FakeClock();
  const d = await compatAppFor(t, {
    clock,
    store,
    env: { COMPAT_API_SHARED_SECRET: secret, COMPAT_CALLBACK_ALLOW: '127.0.0.1', ...env },
    compat: { callbacks: { retryDelaysMs: [0, 50] } },
  });
  d.compat.run();
  return { clock, services: d.services, compat: d.compat, api: new ConfapiClient(d.compatUrl, secret) };
}

/** The engine room of an open meeting, as its join link names it. */
async function roomOf(api: ConfapiClient, meetingId: string): Promise<string> {
  const joined = await api.get('join', [
    ['meetingID', meetingId],
    ['fullName', 'Probe'],
    ['role', 'VIEWER'],
    ['redirect', 'false'],
  ]);
  return decodeURIComponent(new URL(String(joined.xml.url)).pathname.split('/')[2]!);
}

async function enter(services: Rig['services'], roomId: string, role: 'moderator' | 'participant', name: string) {
  const result = await services.waiting.start({
    roomId,
    name,
    claims: { role, source: 'lms', name },
    clientKey: 'test',
  });
  if (result.status !== 'joined') throw new Error(`${name} did not enter: ${result.status}`);
  return result.participant;
}

onEachServiceStore(
  'a meeting ends by duration, by emptying, or unused; each end fires the callback once',
  async (t, store) => {
    const receiver = await receiverFor(t);
    const { clock, services, api } = await rig(t, store);
    const endUrl = (id: string) => ['meta_endCallbackUrl', `${receiver.url}/end/${id}`] as [string, string];

    t.test('duration', async (t) => {
      assertSuccess(
        t,
        await api.get('create', [['meetingID', 'dur'], ['duration', '1'], endUrl('dur')]),
        'create duration=1',
      );
      const room = await roomOf(api, 'dur');
      await enter(services, room, 'moderator', 'Mia');
      t.equal((await api.get('isMeetingRunning', [['meetingID', 'dur']])).xml.running, 'true', 'running');
      clock.advance(59_000);
      t.equal(
        (await api.get('isMeetingRunning', [['meetingID', 'dur']])).xml.running,
        'true',
        'still running after 59 s',
      );
      clock.advance(2_000);
      t.equal((await api.get('isMeetingRunning', [['meetingID', 'dur']])).xml.running, 'false', 'over after a minute');
      t.equal(services.meetings.current(room), null, 'the engine meeting was ended: everyone is out');
      const callback = await receiver.next();
      t.equal(
        new URL(callback.url, receiver.url).searchParams.get('meetingID'),
        'dur',
        'the end callback names the meeting',
      );
    });

    // Issue 33 point 8: an emptied API meeting ends after upstream's meetingExpireWhenLastUserLeftInMinutes
    // (1 by default), not after the engine's 5-minute grace, so Greenlight's meeting_ended comes in time.
    t.test('emptying: ends a minute after the last person left', async (t) => {
      assertSuccess(t, await api.get('create', [['meetingID', 'empty'], endUrl('empty')]), 'create');
      const room = await roomOf(api, 'empty');
      const p = await enter(services, room, 'participant', 'Pat');
      t.equal((await api.get('getMeetingInfo', [['meetingID', 'empty']])).xml.hasUserJoined, 'true');
      await services.meetings.leave(p.participantId);
      t.equal(
        (await api.get('isMeetingRunning', [['meetingID', 'empty']])).xml.running,
        'false',
        'nobody present: not running',
      );
      clock.advance(59_000);
      assertSuccess(t, await api.get('getMeetingInfo', [['meetingID', 'empty']]), 'but it exists');
      t.equal((await api.get('getMeetingInfo', [['meetingID', 'empty']])).xml.endTime, '0', 'still open after 59 s');
      clock.advance(2_000);
      const info = await api.get('getMeetingInfo', [['meetingID', 'empty']]);
      t.not(info.xml.endTime, '0', 'ended a minute after she left');
      t.equal(info.xml.hasBeenForciblyEnded, 'false', 'not forcibly');
      t.equal(services.meetings.current(room), null, 'the engine meeting is closed with it');
      t.equal((await api.get('getMeetings')).xml.messageKey, 'noMeetings');
      const callback = await receiver.next();
      t.match(callback.url, /^\/end\/empty\?meetingID=empty&recordingmarks=false$/);
    });

    t.test('unused: ends five minutes after create when nobody came', async (t) => {
      assertSuccess(t, await api.get('create', [['meetingID', 'unused'], endUrl('unused')]), 'create');
      clock.advance(4 * 60_000 + 59_000);
      t.equal((await api.get('getMeetings')).xml.meetings.meeting.meetingID, 'unused', 'listed after 4 min 59 s');
      clock.advance(2_000);
      t.equal((await api.get('getMeetings')).xml.messageKey, 'noMeetings', 'gone after five minutes nobody came');
      t.match((await receiver.next()).url, /^\/end\/unused\?/);
    });

    t.test('both as create parameters, as upstream', async (t) => {
      assertSuccess(
        t,
        await api.get('create', [
          ['meetingID', 'long-empty'],
          ['meetingExpireWhenLastUserLeftInMinutes', '3'],
          endUrl('long-empty'),
        ]),
        'create, 3 minutes after the last left',
      );
      const p = await enter(services, await roomOf(api, 'long-empty'), 'moderator', 'Max');
      await services.meetings.leave(p.participantId);
      clock.advance(2 * 60_000 + 59_000);
      t.equal((await api.get('getMeetingInfo', [['meetingID', 'long-empty']])).xml.endTime, '0', 'open after 2:59');
      clock.advance(2_000);
      t.not((await api.get('getMeetingInfo', [['meetingID', 'long-empty']])).xml.endTime, '0', 'ended after 3 min');
      t.match((await receiver.next()).url, /^\/end\/long-empty\?/);

      assertSuccess(
        t,
        await api.get('create', [
          ['meetingID', 'long-unused'],
          ['meetingExpireIfNoUserJoinedInMinutes', '10'],
          endUrl('long-unused'),
        ]),
        'create, 10 minutes for somebody to come',
      );
      clock.advance(9 * 60_000);
      t.equal((await api.get('getMeetings')).xml.meetings.meeting.meetingID, 'long-unused', 'listed after 9 min');
      clock.advance(61_000);
      t.equal((await api.get('getMeetings')).xml.messageKey, 'noMeetings', 'gone after 10 min');
      t.match((await receiver.next()).url, /^\/end\/long-unused\?/);

      for (const [name, value] of [
        ['meetingExpireWhenLastUserLeftInMinutes', 'soon'],
        ['meetingExpireIfNoUserJoinedInMinutes', '-1'],
      ] as const) {
        const refused = await api.get('create', [
          ['meetingID', 'bad-expiry'],
          [name, value],
        ]);
        assertFailed(t, refused, 'validationError', `${name}=${value}`);
        t.match(refused.xml.message, name, 'the message names the parameter');
      }
      await new Promise((r) => setTimeout(r, 200));
      t.equal(receiver.received.length, 5, 'one callback per end, no more');
    });
  },
);

onEachServiceStore('guestPolicy maps to the room; join links never wait', async (t, store) => {
  t.test('instance optional', async (t) => {
    const { services, api } = await rig(t, store);
    assertSuccess(
      t,
      await api.get('create', [
        ['meetingID', 'open'],
        ['guestPolicy', 'ALWAYS_ACCEPT'],
      ]),
      'ALWAYS_ACCEPT',
    );
    t.match(await services.rooms.get(await roomOf(api, 'open')), { waitingRoom: 'off' }, 'nobody waits');
    t.equal(
      (await services.waiting.start({ roomId: await roomOf(api, 'open'), name: 'Bare', clientKey: 'x' })).status,
      'joined',
      'a bare-link guest enters',
    );
    assertSuccess(
      t,
      await api.get('create', [
        ['meetingID', 'ask'],
        ['guestPolicy', 'ASK_MODERATOR'],
      ]),
      'ASK_MODERATOR',
    );
    t.match(await services.rooms.get(await roomOf(api, 'ask')), { waitingRoom: 'guests', waitingRoomMode: 'approval' });
    t.equal(
      (await services.waiting.start({ roomId: await roomOf(api, 'ask'), name: 'Bare', clientKey: 'x' })).status,
      'knock',
      'a bare-link guest waits',
    );
    await enter(services, await roomOf(api, 'ask'), 'participant', 'Platform user');
    t.pass('a platform arrival enters directly');
    assertSuccess(
      t,
      await api.get('create', [
        ['meetingID', 'deny'],
        ['guestPolicy', 'ALWAYS_DENY'],
      ]),
      'ALWAYS_DENY',
    );
    const denied = await roomOf(api, 'deny');
    t.match(await services.rooms.get(denied), { waitingRoom: 'off', entry: 'token', unlisted: true });
    await t.rejects(
      services.waiting.start({ roomId: denied, name: 'Bare', clientKey: 'x' }),
      { code: 'guest_denied' },
      'a bare-link guest is refused',
    );
    await enter(services, denied, 'participant', 'Platform user');
    assertSuccess(
      t,
      await api.get('create', [
        ['meetingID', 'auth'],
        ['guestPolicy', 'ALWAYS_ACCEPT_AUTH'],
      ]),
      'ALWAYS_ACCEPT_AUTH',
    );
    t.equal(
      (await services.waiting.start({ roomId: await roomOf(api, 'auth'), name: 'Bare', clientKey: 'x' })).status,
      'knock',
      'a bare-link guest asks',
    );
  });

  t.test('the default comes from [modules.compat] default_guest_policy', async (t) => {
    const { services, api } = await rig(t, store, { COMPAT_DEFAULT_GUEST_POLICY: 'ASK_MODERATOR' });
    assertSuccess(t, await api.get('create', [['meetingID', 'dflt']]), 'create without guestPolicy');
    t.match(await services.rooms.get(await roomOf(api, 'dflt')), { waitingRoom: 'guests' });
  });

  t.test('instance forced: ALWAYS_ACCEPT becomes guests, and platform arrivals still enter', async (t) => {
    const { services, api } = await rig(t, store, {
      SERVICE_WAITING_ROOM: 'forced',
      SERVICE_WAITING_ROOM_MODE: 'until_moderator',
    });
    assertSuccess(
      t,
      await api.get('create', [
        ['meetingID', 'forced'],
        ['guestPolicy', 'ALWAYS_ACCEPT'],
      ]),
      'create',
    );
    t.match(await services.rooms.get(await roomOf(api, 'forced')), {
      waitingRoom: 'guests',
      waitingRoomMode: 'until_moderator',
    });
    assertSuccess(
      t,
      await api.get('create', [
        ['meetingID', 'forced2'],
        ['guestPolicy', 'ASK_MODERATOR'],
      ]),
      'ASK_MODERATOR under a fixed mode',
    );
    await enter(services, await roomOf(api, 'forced'), 'participant', 'Viewer');
    t.pass('a viewer with a join token enters without a moderator present');
  });

  t.test('instance off: no waiting room, so a guest who would have to ask is refused', async (t) => {
    const { services, api } = await rig(t, store, { SERVICE_WAITING_ROOM: 'off' });
    assertSuccess(
      t,
      await api.get('create', [
        ['meetingID', 'off'],
        ['guestPolicy', 'ASK_MODERATOR'],
      ]),
      'create',
    );
    const room = await roomOf(api, 'off');
    t.match(await services.rooms.get(room), { waitingRoom: 'off', entry: 'token' });
    await t.rejects(services.waiting.start({ roomId: room, name: 'Bare', clientKey: 'x' }), { code: 'guest_denied' });
    t.equal((await api.get('getMeetingInfo', [['meetingID', 'off']])).xml.returncode, 'SUCCESS');
  });
});

onEachServiceStore('the live view: audio/video in getMeetingInfo, System chat, locks', async (t, store) => {
  const { services, compat, api } = await rig(t, store);
  const posted: [string, string][] = [];
  assertSuccess(
    t,
    await api.get('create', [
      ['meetingID', 'live'],
      ['lockSettingsDisableMic', 'true'],
      ['webcamsOnlyForModerator', 'true'],
      ['muteOnStart', 'true'],
    ]),
    'create with locks',
  );
  const roomId = await roomOf(api, 'live');
  const mod = await enter(services, roomId, 'moderator', 'Mod');
  const viewer = await enter(services, roomId, 'participant', 'Vi');
  const view: MeetingLiveView = {
    attendees: (room) =>
      services.meetings.present(room).map((p) => ({
        participantId: p.participantId,
        name: p.name,
        role: p.role,
        audio: p.role === 'moderator',
        video: true,
        screen: false,
        connected: true,
      })),
    postSystemChat: async (room, text) => {
      posted.push([room, text]);
      return true;
    },
    activity: async () =>
      new Map([[viewer.participantId, { talkTimeMs: 4200, webcams: [{ startedOn: 1, stoppedOn: 2 }], messages: 3 }]]),
  };
  compat.setLiveView(view);
  const info = (await api.get('getMeetingInfo', [['meetingID', 'live']])).xml;
  t.equal(info.participantCount, '2');
  t.equal(info.moderatorCount, '1');
  t.equal(info.voiceParticipantCount, '1');
  t.equal(info.videoCount, '2');
  const byName = Object.fromEntries(attendeesOf(info).map((a) => [a.fullName, a]));
  t.match(byName.Mod, { role: 'MODERATOR', hasJoinedVoice: 'true', hasVideo: 'true' });
  t.match(byName.Vi, { role: 'VIEWER', hasJoinedVoice: 'false', hasVideo: 'true' });
  assertSuccess(
    t,
    await api.get('sendChatMessage', [
      ['meetingID', 'live'],
      ['message', 'Hello all'],
    ]),
    'sendChatMessage',
  );
  t.same(posted, [[roomId, 'Hello all']], 'the live connection got it');
  t.match(
    await compat.systemChat(roomId),
    [{ sender: 'System', text: 'Hello all', delivered: true }],
    'and the module kept it',
  );
  t.same(compat.locksFor(roomId), { mic: true, cam: false, camsModeratorsOnly: true }, 'locks for the media side');
  t.equal(compat.meetingIn(roomId)?.settings.muteOnStart, true, 'muteOnStart for the media side');
  t.equal(compat.locksFor('no-such-room'), null);
  const dashboard = await injectFetch(api.url('learningDashboard', [['meetingID', 'live']])).then(
    (r) => r.json() as Promise<{ response: { data: string } }>,
  );
  const users = Object.values(JSON.parse(dashboard.response.data).users as Record<string, any>);
  t.match(
    users.find((u) => u.name === 'Vi'),
    { talk: { totalTime: 4200 }, webcams: [{ startedOn: 1, stoppedOn: 2 }], totalOfMessages: 3 },
    'activity in the dashboard',
  );
  t.equal(users.length, 2);
  void mod;
});

onEachServiceStore('recordings: local metadata only, and the recording-ready callback', async (t, store) => {
  const receiver = await receiverFor(t, 202);
  const { compat, api } = await rig(t, store);
  const empty = await api.get('getRecordings', [['meetingID', 'rec']]);
  assertSuccess(t, empty, 'getRecordings');
  t.equal(empty.xml.messageKey, 'noRecordings', 'an empty list with noRecordings');
  assertFailed(
    t,
    await api.get('publishRecordings', [['publish', 'true']]),
    'missingParamRecordID',
    'publish without recordID',
  );
  assertFailed(
    t,
    await api.get('publishRecordings', [['recordID', 'x']]),
    'missingParamPublish',
    'publish without publish',
  );
  assertFailed(
    t,
    await api.get('publishRecordings', [
      ['recordID', 'x'],
      ['publish', 'true'],
    ]),
    'notFound',
    'publish an unknown recording',
  );
  assertFailed(t, await api.get('deleteRecordings', [['recordID', 'x']]), 'notFound', 'delete an unknown recording');
  assertFailed(t, await api.get('updateRecordings', [['recordID', 'x']]), 'notFound', 'update an unknown recording');

  const created = await api.get('create', [
    ['meetingID', 'rec'],
    ['meta_bbb-recording-ready-url', `${receiver.url}/ready`],
  ]);
  const internalId = created.xml.internalMeetingID as string;
  assertSuccess(
    t,
    await api.get('end', [
      ['meetingID', 'rec'],
      ['password', created.xml.moderatorPW],
    ]),
    'end',
  );
  const recording = await compat.recordingReady(internalId, {
    recordId: internalId,
    name: 'rec',
    published: true,
    protected: false,
    startTime: 1,
    endTime: 2,
    participants: 1,
    metadata: [['gl-listed', 'false']],
  });
  t.ok(recording, 'recorded for an ended meeting');
  const ready = await receiver.next();
  t.equal(ready.method, 'POST');
  t.equal(ready.url, '/ready');
  const jwt = new URLSearchParams(ready.body).get('signed_parameters') ?? '';
  const { payload } = await jwtVerify(jwt, new TextEncoder().encode(secret), { algorithms: ['HS256'] });
  t.same(payload, { meeting_id: 'rec', record_id: internalId }, "signed with the owning tenant's secret");

  const listed = await api.get('getRecordings', [['meetingID', 'rec,other']]);
  t.equal(listed.xml.recordings.recording.recordID, internalId, 'getRecordings lists the local entry');
  t.equal(
    (
      await api.get('publishRecordings', [
        ['recordID', internalId],
        ['publish', 'false'],
      ])
    ).xml.published,
    'false',
  );
  t.equal(
    (await api.get('getRecordings', [['recordID', internalId]])).xml.recordings.recording.published,
    'false',
    'unpublished',
  );
  assertSuccess(
    t,
    await api.get('updateRecordings', [
      ['recordID', internalId],
      ['meta_gl-listed', 'true'],
      ['meta_name', ''],
      ['protect', 'true'],
    ]),
    'update',
  );
  const updated = (await api.get('getRecordings', [['recordID', internalId]])).xml.recordings.recording;
  t.equal(updated.metadata['gl-listed'], 'true');
  t.equal(updated.protected, 'true');
  t.equal((await api.get('deleteRecordings', [['recordID', internalId]])).xml.deleted, 'true');
  t.equal((await api.get('getRecordings', [])).xml.messageKey, 'noRecordings', 'the entry is gone');
});
