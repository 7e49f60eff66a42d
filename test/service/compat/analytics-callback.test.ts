// Issue 12 point 5: the learning-analytics callback (meta_analytics-callback-url) is sent when
// a meeting that ran ends: one POST of the upstream JSON, a Bearer JWT HS512 {exp: now+24h}
// signed with the tenant's secret, through the durable queue and its private-address guard.
import { jwtVerify, SignJWT } from 'jose';
import t from 'tap';
import { CallbackQueue } from '../../../src/compat/confapi/callbacks.js';
import { TargetGuard } from '../../../src/compat/confapi/target-guard.js';
import type { Tap } from '../../helpers/api.js';
import {
  assertSuccess,
  compatInProcessFor,
  ConfapiClient,
  logMatch,
  receiverFor,
  roomAndToken,
  startWithToken,
  type CompatServer,
} from '../../helpers/compat.js';
import { MemoryCallbacks, settled } from '../../helpers/memory-callbacks.js';

const secret = 'analytics-tenant-secret-4b9e21';
const key = new TextEncoder().encode(secret);

/** Joins through the API and enters the room with the join link, as a browser does. */
async function enter(
  t: Tap,
  d: CompatServer,
  api: ConfapiClient,
  meetingId: string,
  fullName: string,
  password: string,
): Promise<void> {
  const joined = await api.get('join', [
    ['meetingID', meetingId],
    ['fullName', fullName],
    ['password', password],
    ['userID', `lms-${fullName}`],
    ['redirect', 'false'],
  ]);
  assertSuccess(t, joined, `join ${fullName}`);
  const { roomId, token } = roomAndToken(String(joined.xml.url));
  t.match((await startWithToken(d, roomId, token)).body, { status: 'joined' }, `${fullName} entered`);
}

t.test('a meeting that ran sends one analytics POST at its end, signed HS512 with the tenant secret', async (t) => {
  const receiver = await receiverFor(t, 202);
  const d = await compatInProcessFor(t, { COMPAT_API_SHARED_SECRET: secret, COMPAT_CALLBACK_ALLOW: '127.0.0.1' });
  const api = new ConfapiClient(d.compatUrl, secret);

  // Nobody enters this one: upstream sends analytics only for meetings that ran.
  assertSuccess(
    t,
    await api.get('create', [
      ['meetingID', 'unused'],
      ['moderatorPW', 'mp'],
      ['meta_analytics-callback-url', `${receiver.url}/unused`],
    ]),
    'create unused',
  );
  assertSuccess(
    t,
    await api.get('end', [
      ['meetingID', 'unused'],
      ['password', 'mp'],
    ]),
    'end unused',
  );

  const created = await api.get('create', [
    ['meetingID', 'course-7'],
    ['name', 'Course 7'],
    ['moderatorPW', 'mp'],
    ['attendeePW', 'ap'],
    ['meta_analytics-callback-url', `${receiver.url}/analytics?course=7`],
  ]);
  assertSuccess(t, created, 'create');
  await enter(t, d, api, 'course-7', 'Mia', 'mp');
  await enter(t, d, api, 'course-7', 'Vic', 'ap');
  const before = Math.floor(Date.now() / 1000);
  assertSuccess(
    t,
    await api.get('end', [
      ['meetingID', 'course-7'],
      ['password', 'mp'],
    ]),
    'end',
  );

  const got = await receiver.next();
  t.equal(got.method, 'POST');
  t.equal(got.url, '/analytics?course=7', 'the URL as given, nothing added');
  t.match(got.headers['content-type'], /^application\/json/);
  t.equal(got.headers['user-agent'], 'BigBlueButton Analytics Callback');
  const auth = /^Bearer (.+)$/.exec(String(got.headers.authorization ?? ''));
  t.ok(auth, 'a Bearer token');
  const jwt = auth?.[1] ?? '';
  const { payload, protectedHeader } = await jwtVerify(jwt, key, { algorithms: ['HS512'] });
  t.equal(protectedHeader.alg, 'HS512');
  t.ok(
    payload.exp !== undefined && payload.exp >= before + 24 * 3600 - 5 && payload.exp <= before + 24 * 3600 + 60,
    'exp is now + 24 h',
  );
  await t.rejects(
    jwtVerify(jwt, new TextEncoder().encode('another-secret-entirely'), { algorithms: ['HS512'] }),
    'another secret does not verify it',
  );
  await t.rejects(jwtVerify(jwt, key, { algorithms: ['HS256'] }), 'it verifies only as HS512');
  const hs256 = await new SignJWT({}).setProtectedHeader({ alg: 'HS256' }).setExpirationTime('1h').sign(key);
  await t.rejects(
    jwtVerify(hs256, key, { algorithms: ['HS512'] }),
    'a token of another algorithm does not pass the receiver check',
  );

  const body = JSON.parse(got.body);
  t.match(body, { version: '1.0', meeting_id: 'course-7', internal_meeting_id: created.xml.internalMeetingID });
  t.equal(body.data.metadata.meeting_name, 'Course 7');
  const attendees = body.data.attendees as any[];
  t.same(
    attendees.map((a) => [a.name, a.moderator]),
    [
      ['Mia', true],
      ['Vic', false],
    ],
    'both attendees, in join order, with their role',
  );
  for (const a of attendees) {
    t.notOk('id' in a, `${a.name}: no internal id, as upstream`);
    t.equal(
      a.ext_user_id,
      `lms-${a.name}`,
      `${a.name}: ext_user_id is the userID her join gave, so the platform finds its user`,
    );
    t.equal(a.sessions[0].joins[0].ext_userid, `lms-${a.name}`);
    t.ok(Date.parse(a.joins[0]) <= Date.parse(a.leaves[0]), `${a.name}: joined before leaving`);
    t.match(a.engagement, { chats: Number, talk_time: Number }, `${a.name}: chat count and talk time`);
  }
  t.ok(Date.parse(body.data.start) <= Date.parse(body.data.finish), 'start and finish');

  await new Promise((r) => setTimeout(r, 400));
  t.same(
    receiver.received.map((r) => r.url),
    ['/analytics?course=7'],
    'exactly one POST; none for the meeting nobody entered',
  );
  t.notOk(
    d.lines.some((line) => line.includes(jwt) || /authorization/i.test(line)),
    'the Authorization header is never logged',
  );
});

t.test('a private address without allow-listing gets nothing: the guard refuses it', async (t) => {
  const receiver = await receiverFor(t);
  const d = await compatInProcessFor(t, { COMPAT_API_SHARED_SECRET: secret });
  const api = new ConfapiClient(d.compatUrl, secret);
  assertSuccess(
    t,
    await api.get('create', [
      ['meetingID', 'private'],
      ['moderatorPW', 'mp'],
      ['meta_analytics-callback-url', `${receiver.url}/analytics`],
    ]),
    'create',
  );
  await enter(t, d, api, 'private', 'Mia', 'mp');
  assertSuccess(
    t,
    await api.get('end', [
      ['meetingID', 'private'],
      ['password', 'mp'],
    ]),
    'end',
  );
  await logMatch(
    d,
    /"kind":"analytics"[^\n]*"reason":"127\.0\.0\.1 resolves to 127\.0\.0\.1, an internal address[^"]*","msg":"callback refused/,
  );
  await new Promise((r) => setTimeout(r, 300));
  t.equal(receiver.received.length, 0, 'nothing reached the receiver');
});

t.test(
  'a queued analytics job is signed when sent: after a restart, and not at all once the tenant is gone',
  async (t) => {
    const receiver = await receiverFor(t);
    const store = new MemoryCallbacks();
    const job = (tenantId: string) =>
      store.insertCallback({
        kind: 'analytics',
        tenantId,
        internalId: 'int-1',
        method: 'POST',
        url: `${receiver.url}/a/${tenantId}`,
        body: '{"version":"1.0"}',
        contentType: 'application/json',
        nextAt: Date.now(),
        createdAt: Date.now(),
      });
    const kept = await job('kept');
    const removed = await job('removed');
    const queue = new CallbackQueue(
      store,
      new TargetGuard(['127.0.0.1']),
      { info: () => {}, warn: () => {} },
      {},
      (tenant) => (tenant === 'kept' ? secret : null),
    );
    t.teardown(() => queue.stop());
    queue.start();
    t.match(await settled(store, kept.id), { outcome: 'delivered' });
    t.match(await settled(store, removed.id), { outcome: 'gave_up', lastError: /no secret/ });
    t.same(
      receiver.received.map((r) => r.url),
      ['/a/kept'],
      'only the job that could be signed was sent',
    );
    const jwt = String(receiver.received[0]?.headers.authorization).replace(/^Bearer /, '');
    t.ok(
      (await jwtVerify(jwt, key, { algorithms: ['HS512'] })).payload.exp,
      'signed at send time with the current secret',
    );
    t.equal(receiver.received[0]?.body, '{"version":"1.0"}', 'the body stored at the end, unchanged');
  },
);
