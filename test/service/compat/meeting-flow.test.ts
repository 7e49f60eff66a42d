// Issue 5 against a real daemon: create → join (redirect and XML) → the join link enters the
// room without waiting → getMeetingInfo shows her → sendChatMessage → end → the end callback
// reaches an allow-listed local receiver → isMeetingRunning false. On both stores, SQLite and
// PostgreSQL (issue 34 point 5: service-stores.ts).
import { compatAppFor } from '../../helpers/compat-app.js';
import { injectFetch } from '../../helpers/inject-fetch.js';
import { onEachServiceStore } from '../../helpers/service-stores.js';
import {
  assertFailed,
  assertSuccess,
  attendeesOf,
  claimsOf,
  ConfapiClient,
  fetchAnswer,
  receiverFor,
  roomAndToken,
  startWithToken,
} from '../../helpers/compat.js';

const secret = 'flow-secret-0123456789abcdef';
const frontend = 'http://front.example:8080';

/** Top-level element names of a `<response>`, in order. */
function elementOrder(text: string): string[] {
  const names: string[] = [];
  let depth = 0;
  for (const match of text.matchAll(/<(\/?)([A-Za-z_][\w.-]*)[^>]*?(\/?)>/g)) {
    const [, closing, name, selfClosing] = match;
    if (closing) depth--;
    else {
      if (depth === 1) names.push(name!);
      if (!selfClosing) depth++;
    }
  }
  return names;
}

onEachServiceStore('the meeting API end to end', async (t, store) => {
  const receiver = await receiverFor(t);
  const d = await compatAppFor(t, {
    store,
    env: {
      COMPAT_API_SHARED_SECRET: secret,
      COMPAT_FRONTEND_URL: frontend,
      COMPAT_CALLBACK_ALLOW: '127.0.0.1',
    },
  });
  const api = new ConfapiClient(d.compatUrl, secret, 'sha256', 'percent');
  const meetingID = 'course-42 [group 7]';

  t.test('the version answer needs no checksum, with or without the slash', async (t) => {
    for (const path of ['/confapi/api', '/confapi/api/']) {
      const answer = await fetchAnswer(`${d.compatUrl}${path}`);
      assertSuccess(t, answer, path);
      t.same(
        elementOrder(answer.text),
        ['returncode', 'version', 'apiVersion', 'bbbVersion'],
        `${path}: returncode, version, apiVersion, bbbVersion`,
      );
      t.equal(answer.xml.version, '2.0');
      // Issue 33 point 8: the upstream release whose API this one matches.
      t.equal(answer.xml.bbbVersion, '2.7.0', `${path}: bbbVersion`);
    }
  });

  const created = await api.get('create', [
    ['meetingID', meetingID],
    ['name', 'Algebra & <Co> "ü"'],
    ['attendeePW', 'ap-secret'],
    ['moderatorPW', 'mp-secret'],
    ['guestPolicy', 'ASK_MODERATOR'],
    ['meta_endCallbackUrl', `${receiver.url}/ended?token=abc%20def`],
    ['meta_bbb-origin', 'Moodle'],
    ['meta_bad_name', 'dropped'],
  ]);
  assertSuccess(t, created, 'create');
  t.same(
    elementOrder(created.text),
    [
      'returncode',
      'meetingID',
      'internalMeetingID',
      'parentMeetingID',
      'attendeePW',
      'moderatorPW',
      'createTime',
      'voiceBridge',
      'dialNumber',
      'createDate',
      'hasUserJoined',
      'duration',
      'hasBeenForciblyEnded',
      'messageKey',
      'message',
    ],
    'create answers the upstream elements in order',
  );
  t.equal(created.xml.meetingID, meetingID, 'meetingID echoed');
  t.match(created.xml.internalMeetingID, /^[0-9a-f]{40}-\d{13}$/, 'internalMeetingID is sha1-createTime');
  t.match(
    created.xml.createDate,
    /^\w{3} \w{3} \d{2} \d{2}:\d{2}:\d{2} UTC \d{4}$/,
    'createDate as upstream prints it',
  );
  t.equal(created.xml.messageKey, '', 'a first create has an empty messageKey');
  const createTime = created.xml.createTime as string;

  t.test('create again: SUCCESS with the same meeting and duplicateWarning, even with other passwords', async (t) => {
    const again = await api.get('create', [
      ['meetingID', meetingID],
      ['attendeePW', 'other'],
      ['moderatorPW', 'other2'],
    ]);
    assertSuccess(t, again, 're-create');
    t.equal(again.xml.messageKey, 'duplicateWarning');
    t.equal(again.xml.internalMeetingID, created.xml.internalMeetingID, 'the same meeting');
    t.equal(again.xml.moderatorPW, 'mp-secret', 'its passwords unchanged');
  });

  let roomId = '';
  let viewerToken = '';
  t.test('join redirects to the frontend with a join token of source lms', async (t) => {
    const answer = await api.get('join', [
      ['fullName', 'Alice Example'],
      ['meetingID', meetingID],
      ['password', 'ap-secret'],
      ['createTime', createTime],
      ['userID', 'moodle-user-7'],
    ]);
    t.equal(answer.status, 302, 'HTTP 302');
    const location = answer.headers.get('location') ?? '';
    t.ok(
      location.startsWith(`${frontend}/room/`),
      `redirects to COMPAT_FRONTEND_URL/room/<id> (${location.slice(0, 60)})`,
    );
    const parsed = roomAndToken(location);
    roomId = parsed.roomId;
    viewerToken = parsed.token;
    t.match(
      claimsOf(viewerToken),
      { room: roomId, role: 'participant', source: 'lms', name: 'Alice Example', uid: 'moodle-user-7' },
      'the token names room, role, source lms, name',
    );
  });

  t.test('join with redirect=false answers the URL in XML', async (t) => {
    const answer = await api.get('join', [
      ['fullName', 'Mo Derator'],
      ['meetingID', meetingID],
      ['role', 'MODERATOR'],
      ['redirect', 'false'],
    ]);
    assertSuccess(t, answer, 'join redirect=false');
    t.equal(answer.xml.messageKey, 'successfullyJoined');
    t.equal(answer.xml.meeting_id, created.xml.internalMeetingID, 'meeting_id is the internal id');
    const { roomId: room, token } = roomAndToken(answer.xml.url);
    t.equal(room, roomId, 'the same room');
    t.match(
      claimsOf(token),
      { role: 'moderator', source: 'lms' },
      'role MODERATOR takes priority (no password needed)',
    );
  });

  t.test(
    'the room makes bare-link guests wait (guestPolicy ASK_MODERATOR) but the join link enters directly',
    async (t) => {
      const room = await d.api(`/api/rooms/${roomId}`).then((r) => r.json());
      t.match(
        room,
        { waiting_room: 'guests', waiting_room_mode: 'approval' },
        'ASK_MODERATOR maps to guests with approval',
      );
      const bare = await injectFetch(`${d.url}/room/${roomId}/start`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ name: 'Bare guest' }),
      }).then((r) => r.json());
      t.same(bare, { status: 'knock' }, 'a bare-link guest must knock');
      const entered = await startWithToken(d, roomId, viewerToken);
      t.equal(entered.status, 200);
      t.match(
        entered.body,
        { status: 'joined', role: 'participant' },
        'the join link enters directly, no waiting room',
      );
    },
  );

  t.test('getMeetingInfo shows her, counters from the engine, passwords masked', async (t) => {
    const info = await api.get('getMeetingInfo', [['meetingID', meetingID]]);
    assertSuccess(t, info, 'getMeetingInfo');
    t.same(
      elementOrder(info.text),
      [
        'returncode',
        'meetingName',
        'meetingID',
        'internalMeetingID',
        'createTime',
        'createDate',
        'voiceBridge',
        'dialNumber',
        'attendeePW',
        'moderatorPW',
        'running',
        'duration',
        'hasUserJoined',
        'recording',
        'hasBeenForciblyEnded',
        'startTime',
        'endTime',
        'participantCount',
        'listenerCount',
        'voiceParticipantCount',
        'videoCount',
        'maxUsers',
        'moderatorCount',
        'attendees',
        'metadata',
        'isBreakout',
      ],
      'upstream element order',
    );
    t.equal(info.xml.meetingName, 'Algebra & <Co> "ü"', 'the name round-trips through XML escaping');
    t.match(info.text, /Algebra &amp; &lt;Co&gt;/, 'escaped in the text');
    t.equal(info.xml.attendeePW, '***');
    t.equal(info.xml.moderatorPW, '***');
    t.equal(info.xml.running, 'true');
    t.equal(info.xml.participantCount, '1');
    t.equal(info.xml.moderatorCount, '0');
    const attendees = attendeesOf(info.xml);
    t.equal(attendees.length, 1, 'one attendee');
    t.match(
      attendees[0],
      { fullName: 'Alice Example', role: 'VIEWER', hasJoinedVoice: 'false', hasVideo: 'false' },
      'role, audio and video',
    );
    t.same(
      info.xml.metadata,
      { endcallbackurl: `${receiver.url}/ended?token=abc%20def`, 'bbb-origin': 'Moodle' },
      'metadata without prefix, lowercased; bad names dropped',
    );
    const running = await api.get('isMeetingRunning', [['meetingID', meetingID]]);
    t.equal(running.xml.running, 'true', 'isMeetingRunning true');
    const list = await api.get('getMeetings');
    t.equal(list.xml.meetings.meeting.meetingID, meetingID, 'getMeetings lists it');
  });

  t.test('sendChatMessage posts in the name of System', async (t) => {
    const sent = await api.get('sendChatMessage', [
      ['meetingID', meetingID],
      ['message', 'Class ends in 5 minutes <b>now</b>'],
    ]);
    assertSuccess(t, sent, 'sendChatMessage');
    assertFailed(t, await api.get('sendChatMessage', [['meetingID', meetingID]]), 'missingParamMessage', 'no message');
    assertFailed(
      t,
      await api.get('sendChatMessage', [
        ['meetingID', 'nope'],
        ['message', 'x'],
      ]),
      'notFound',
      'unknown meeting',
    );
    const chat = await d.compat.systemChat(roomId);
    t.match(
      chat,
      [{ sender: 'System', text: 'Class ends in 5 minutes <b>now</b>' }],
      'recorded for the live connection',
    );
  });

  t.test('learningDashboard: JSON session data with her attendance', async (t) => {
    const response = await injectFetch(api.url('learningDashboard', [['meetingID', meetingID]]));
    t.match(response.headers.get('content-type'), /^application\/json/);
    const body = (await response.json()) as { response: { returncode: string; data: string } };
    t.equal(body.response.returncode, 'SUCCESS');
    const data = JSON.parse(body.response.data) as { extId: string; users: Record<string, any>; createdOn: number };
    t.equal(data.extId, meetingID);
    const users = Object.values(data.users);
    t.equal(users.length, 1, 'one user');
    t.match(users[0], {
      name: 'Alice Example',
      isModerator: false,
      talk: { totalTime: 0 },
      webcams: [],
      totalOfMessages: 0,
    });
    t.equal(Object.values(users[0].intIds as Record<string, any>)[0].sessions.length, 1, 'her session');
  });

  t.test('end: wrong password refused, right one ends; the callback arrives; running false', async (t) => {
    assertFailed(
      t,
      await api.get('end', [
        ['meetingID', meetingID],
        ['password', 'ap-secret'],
      ]),
      'invalidPassword',
      'attendee password',
    );
    assertFailed(t, await api.get('end', [['meetingID', meetingID]]), 'invalidPassword', 'no password');
    const ended = await api.get('end', [
      ['meetingID', meetingID],
      ['password', 'mp-secret'],
    ]);
    assertSuccess(t, ended, 'end');
    t.equal(ended.xml.messageKey, 'sentEndMeetingRequest');
    const callback = await receiver.next();
    t.equal(callback.method, 'GET', 'callback is a GET');
    const url = new URL(callback.url, receiver.url);
    t.equal(url.pathname, '/ended');
    t.equal(url.searchParams.get('meetingID'), meetingID, 'meetingID added to the query');
    t.equal(url.searchParams.get('recordingmarks'), 'false', 'recordingmarks=false added');
    t.match(callback.url, /token=abc%20def&/, 'the query already there is kept as it was');
    const running = await api.get('isMeetingRunning', [['meetingID', meetingID]]);
    t.equal(running.xml.running, 'false', 'isMeetingRunning false');
    const info = await api.get('getMeetingInfo', [['meetingID', meetingID]]);
    t.equal(info.xml.hasBeenForciblyEnded, 'true', 'getMeetingInfo still describes it as forcibly ended');
    t.equal(info.xml.running, 'false');
    assertFailed(
      t,
      await api.get('join', [
        ['fullName', 'Late'],
        ['meetingID', meetingID],
        ['role', 'VIEWER'],
      ]),
      'meetingForciblyEnded',
      'join after end',
    );
    const list = await api.get('getMeetings');
    t.equal(list.xml.messageKey, 'noMeetings', 'getMeetings: noMeetings');
  });

  t.test('create after end makes a new meeting in a new room', async (t) => {
    const again = await api.get('create', [['meetingID', meetingID]]);
    assertSuccess(t, again, 're-create after end');
    t.equal(again.xml.messageKey, '', 'not a duplicate');
    t.not(again.xml.internalMeetingID, created.xml.internalMeetingID, 'a new internal id');
    t.equal(again.xml.name ?? meetingID, meetingID);
    const joinUrl = await api.get('join', [
      ['fullName', 'Bo'],
      ['meetingID', meetingID],
      ['role', 'VIEWER'],
      ['redirect', 'false'],
    ]);
    t.not(roomAndToken(joinUrl.xml.url).roomId, roomId, 'a new engine room: the ended one stays closed');
    assertFailed(
      t,
      await api.get('join', [
        ['fullName', 'Bo'],
        ['meetingID', meetingID],
        ['createTime', createTime],
      ]),
      'mismatchCreateTimeParam',
      'old createTime',
    );
  });
});
