// ICE servers handed with the session (issue 17 point 7, issue 18 point 5): the TURN REST
// credential against an HMAC computed by openssl, and, on a real daemon, who gets servers:
// every admitted answer (start, knock, poll) does, a waiting person's answers never do.
// Issue 28 point 13: the credential lives an hour (not the session's 12) and is renewed over
// the live connection only while she stays.
import { execFileSync } from 'node:child_process';
import t from 'tap';
import { turnCredential } from '../../../src/http/room/ice-servers.js';
import { dataDirFor } from '../../helpers/api.js';
import { FakeClock, FakeScheduler } from '../../helpers/fake-clock.js';
import { inProcessDaemonFor } from '../../helpers/in-process-daemon.js';
import { connectLive } from '../../helpers/live.js';
import { Browser, admittedSession, asSession, claimsOf, createRoom, moderator } from '../../helpers/waiting.js';

const secret = 'coturn-static-auth-secret-0123456789';
const servers = 'stun:stun.example.org:3478,turn:turn.example.org:3478?transport=udp,turns:turn.example.org:5349';

/** base64(HMAC-SHA1(key, text)) by openssl, independently of node:crypto. */
function opensslHmacSha1(key: string, text: string): string {
  const hex = execFileSync('openssl', ['dgst', '-sha1', '-hmac', key, '-r'], { input: text, encoding: 'utf8' }).split(
    ' ',
  )[0]!;
  return Buffer.from(hex, 'hex').toString('base64');
}

t.test('the credential is what coturn use-auth-secret expects', async (t) => {
  const made = turnCredential(secret, 'p_0123456789', 1_790_000_000);
  t.equal(made.username, '1790000000:p_0123456789', '<expiry unix time>:<participant id>');
  t.equal(
    made.credential,
    opensslHmacSha1(secret, '1790000000:p_0123456789'),
    'base64(HMAC-SHA1(secret, username)), as openssl computes it',
  );
  t.equal(
    turnCredential('key', 'The quick brown fox jumps over the lazy dog', 0).credential.length,
    28,
    '20 bytes of SHA-1 in base64',
  );
});

t.test('on a daemon: admitted answers carry the servers with her own credential, waiting answers never', async (t) => {
  const d = await inProcessDaemonFor(t, dataDirFor(t), { SERVICE_ICE_SERVERS: servers, SERVICE_TURN_SECRET: secret });
  const room = 'ice-room';
  await createRoom(t, d, { room_id: room, name: 'Ice room', waiting_room: 'guests' });
  const mod = await moderator(d, room);
  const before = Math.floor(Date.now() / 1000);
  const modServers = mod.result.body.ice_servers as { urls: string[]; username?: string; credential?: string }[];
  t.same(modServers[0], { urls: ['stun:stun.example.org:3478'] }, 'STUN without credentials');
  const turn = modServers[1]!;
  t.same(
    turn.urls,
    ['turn:turn.example.org:3478?transport=udp', 'turns:turn.example.org:5349'],
    'TURN addresses together',
  );
  const [expiry, who] = String(turn.username).split(':');
  t.equal(who, mod.participantId, 'the user name names her participant id');
  t.ok(
    Number(expiry) >= before + 3600 && Number(expiry) <= Math.floor(Date.now() / 1000) + 3600,
    `expires within the hour, not with the 12 h session (${Number(expiry) - before} s)`,
  );
  t.equal(turn.credential, opensslHmacSha1(secret, String(turn.username)), 'the password checks with openssl');

  const guest = new Browser(d, room);
  const knocked = await guest.knock({ name: 'Gina Guest', note: 'hello' });
  t.equal(knocked.status, 202);
  const waiting = await guest.poll();
  t.same(waiting.body, { status: 'waiting' }, 'the waiting answer is only that');
  const listed = await asSession.list(d, room, mod.session);
  const requestId = String(listed.body[0]?.request_id);
  t.equal((await asSession.admit(d, room, mod.session, { request_id: requestId })).status, 200);
  const admitted = await guest.poll();
  t.equal(admitted.body.status, 'admitted');
  const guestTurn = (admitted.body.ice_servers as { username: string }[])[1]!;
  t.equal(guestTurn.username.split(':')[1], claimsOf(admitted.body.session).participant, 'her own credential');
  t.not(guestTurn.username, turn.username);
  for (const answer of guest.seen.slice(0, -1)) {
    t.notMatch(
      answer.text,
      /ice_servers|turn:|stun:|credential/,
      `${answer.status} ${answer.text.slice(0, 60)}: nothing of the media network while waiting`,
    );
  }
  t.notMatch(JSON.stringify(guest.seen), new RegExp(secret), 'the secret itself is never sent');
  t.notOk(d.lines.join('\n').includes(secret), 'nor logged');
});

t.test('without settings the admitted page gets an empty list', async (t) => {
  const d = await inProcessDaemonFor(t, dataDirFor(t));
  await createRoom(t, d, { room_id: 'plain-room', name: 'Plain', waiting_room: 'off' });
  const started = await new Browser(d, 'plain-room').start({ name: 'Olga Open' });
  t.equal(started.body.status, 'joined');
  t.same(started.body.ice_servers, []);
});

t.test('on a daemon: the live socket renews her credential while she stays; removed, she gets none', async (t) => {
  const scheduler = new FakeScheduler(new FakeClock());
  const d = await inProcessDaemonFor(
    t,
    dataDirFor(t),
    { SERVICE_ICE_SERVERS: servers, SERVICE_TURN_SECRET: secret, SERVICE_TURN_CREDENTIAL_TTL_SECS: '600' },
    { scheduler },
  );
  const room = 'renewal-room';
  await createRoom(t, d, { room_id: room, name: 'Renewal room', waiting_room: 'all' });
  const mod = await moderator(d, room);
  const nowSecs = () => Math.floor(Date.now() / 1000);
  const turnOf = (servers: unknown) => (servers as { urls: string[]; username: string; credential: string }[])[1]!;
  const before = nowSecs();
  t.ok(
    Number(turnOf(mod.result.body.ice_servers).username.split(':')[0]) <= nowSecs() + 600,
    'SERVICE_TURN_CREDENTIAL_TTL_SECS=600: ten minutes',
  );

  const pia = new Browser(d, room);
  t.equal((await pia.knock({ name: 'Pia' })).status, 202);
  t.same((await asSession.admit(d, room, mod.session, { all: true })).body, { admitted: 1 });
  const pupil = admittedSession(await pia.poll(), 'Pia');
  const m = await connectLive(d, room, mod.session);
  const p = await connectLive(d, room, pupil.session);

  const opened = await p.client.next('ice_servers');
  const first = turnOf(opened.ice_servers);
  t.equal(first.username.split(':')[1], pupil.participantId, 'when her socket opens: servers with her own credential');
  t.ok(
    Number(first.username.split(':')[0]) >= before + 600 && Number(first.username.split(':')[0]) <= nowSecs() + 600,
    'valid ten minutes from now',
  );
  t.equal(first.credential, opensslHmacSha1(secret, first.username), 'a credential coturn accepts');
  await m.client.next('ice_servers');

  scheduler.advance(449_000);
  const early = p.client.received.filter((msg) => msg.type === 'ice_servers').length;
  t.equal(early, 1, 'nothing new before three quarters of the lifetime');
  scheduler.advance(1_000);
  const renewed = turnOf((await p.client.next('ice_servers')).ice_servers);
  t.equal(renewed.username.split(':')[1], pupil.participantId, 'renewed at 450 s, over the live socket');
  t.equal(renewed.credential, opensslHmacSha1(secret, renewed.username));
  await m.client.next('ice_servers');

  m.client.send({ type: 'remove', participant_id: pupil.participantId });
  t.equal((await p.client.closed).code, 4403, 'the moderator removes her');
  const hers = p.client.received.filter((msg) => msg.type === 'ice_servers').length;
  scheduler.advance(450_000);
  await m.client.next('ice_servers');
  t.equal(
    p.client.received.filter((msg) => msg.type === 'ice_servers').length,
    hers,
    'she gets no renewal: hers lapses within ten minutes',
  );
  t.notOk(d.lines.join('\n').includes(secret), 'the secret is never logged');
  await m.client.close();
});
