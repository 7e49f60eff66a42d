// Issue 6: open meetings are served from memory and getMeetingInfo answers are kept per
// meeting version. Against the real daemon (real SQLite file; built in this process, no socket,
// unless the process itself is killed): every change a client makes or another path makes shows
// in the next answer, a daemon killed with SIGKILL serves the same answers when it starts again,
// and a kept answer never crosses tenants.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import t from 'tap';
import { compatAppFor, type CompatApp } from '../../helpers/compat-app.js';
import { injectFetch } from '../../helpers/inject-fetch.js';
import { dataDirFor, daemonFor, type Tap } from '../../helpers/api.js';
import { stopDaemon } from '../../helpers/daemon.js';
import { installTestLicence } from '../../helpers/licence.js';
import {
  assertFailed,
  assertSuccess,
  attendeesOf,
  type CompatDaemon,
  type CompatServer,
  ConfapiClient,
  logMatch,
  roomAndToken,
  startWithToken,
} from '../../helpers/compat.js';

const secret = 'read-model-secret-5d1f0a9b';

/** The engine and the compat module, built in this process (no socket), on a data directory the caller keeps. */
function compatOn(t: Tap, dataDir: string, env: Record<string, string> = {}): Promise<CompatApp> {
  return compatAppFor(t, { env: { COMPAT_API_SHARED_SECRET: secret, ...env }, dataDir });
}

/** A spawned compat daemon on a data directory the caller keeps (to kill it and start another on it). */
async function compatDaemonOn(t: Tap, dataDir: string, env: Record<string, string> = {}): Promise<CompatDaemon> {
  const licence = await installTestLicence(dataDir);
  const daemon = await daemonFor(t, {
    dataDir,
    env: { COMPAT_HTTP_ADDR: '127.0.0.1:0', COMPAT_API_SHARED_SECRET: secret, ...licence, ...env },
  });
  const match = await logMatch(daemon, /"url":"(http:[^"]+)"[^\n]*"msg":"compat listening/);
  return Object.assign(daemon, { compatUrl: match[1]! });
}

/** Joins through the API and enters the room with the token, as the browser would. */
async function enter(
  t: Tap,
  d: CompatServer,
  api: ConfapiClient,
  meetingID: string,
  fullName: string,
): Promise<{ roomId: string; session: string }> {
  const joined = await api.get('join', [
    ['meetingID', meetingID],
    ['fullName', fullName],
    ['role', 'VIEWER'],
    ['redirect', 'false'],
  ]);
  assertSuccess(t, joined, `join ${fullName}`);
  const { roomId, token } = roomAndToken(joined.xml.url);
  const entered = await startWithToken(d, roomId, token, fullName);
  t.match(entered.body, { status: 'joined' }, `${fullName} entered`);
  return { roomId, session: entered.body.session as string };
}

t.test('getMeetingInfo follows create, join, leave and end: a kept answer is never stale', async (t) => {
  const d = await compatOn(t, dataDirFor(t));
  const api = new ConfapiClient(d.compatUrl, secret, 'sha256');
  const info = () => api.get('getMeetingInfo', [['meetingID', 'follow']]);

  assertSuccess(
    t,
    await api.get('create', [
      ['meetingID', 'follow'],
      ['name', 'First'],
      ['moderatorPW', 'mp'],
    ]),
    'create',
  );
  const first = await info();
  t.equal(first.xml.hasUserJoined, 'false', 'nobody joined yet');
  t.equal(first.xml.participantCount, '0');
  t.equal((await info()).text, first.text, 'asked again unchanged: the same answer');

  const { roomId, session } = await enter(t, d, api, 'follow', 'Ada');
  const joined = await info();
  t.equal(joined.xml.hasUserJoined, 'true', 'the join shows');
  t.equal(joined.xml.running, 'true');
  t.equal(joined.xml.participantCount, '1');
  t.match(attendeesOf(joined.xml), [{ fullName: 'Ada', role: 'VIEWER' }], 'she is listed');
  t.not(joined.xml.startTime, first.xml.startTime, 'startTime is the engine meeting start now');
  t.equal((await api.get('isMeetingRunning', [['meetingID', 'follow']])).xml.running, 'true', 'isMeetingRunning true');

  await enter(t, d, api, 'follow', 'Bo');
  t.equal((await info()).xml.participantCount, '2', 'a second attendee shows in the same meeting version');

  const left = await injectFetch(`${d.url}/room/${roomId}/leave`, {
    method: 'POST',
    headers: { authorization: `Bearer ${session}` },
  });
  t.equal(left.status, 204, 'Ada leaves');
  const afterLeave = await info();
  t.equal(afterLeave.xml.participantCount, '1', 'her leaving shows');
  t.match(attendeesOf(afterLeave.xml), [{ fullName: 'Bo' }]);

  assertSuccess(
    t,
    await api.get('end', [
      ['meetingID', 'follow'],
      ['password', 'mp'],
    ]),
    'end',
  );
  const ended = await info();
  t.equal(ended.xml.running, 'false', 'not running once ended');
  t.equal(ended.xml.hasBeenForciblyEnded, 'true');
  t.not(ended.xml.endTime, '0', 'endTime set');
  t.equal(ended.xml.participantCount, '0', 'everyone is out');
  t.equal((await api.get('isMeetingRunning', [['meetingID', 'follow']])).xml.running, 'false');

  const again = await api.get('create', [
    ['meetingID', 'follow'],
    ['name', 'Second'],
  ]);
  t.equal(again.xml.messageKey, '', 're-create after end: a new meeting');
  const second = await info();
  t.equal(second.xml.meetingName, 'Second', 'getMeetingInfo describes the new meeting');
  t.equal(second.xml.internalMeetingID, again.xml.internalMeetingID);
  t.equal(second.xml.hasUserJoined, 'false');
});

t.test(
  'a meeting ended by another path (its room deleted through the rooms API) is not reported running',
  async (t) => {
    const d = await compatOn(t, dataDirFor(t));
    const api = new ConfapiClient(d.compatUrl, secret);
    assertSuccess(t, await api.get('create', [['meetingID', 'elsewhere']]), 'create');
    const { roomId } = await enter(t, d, api, 'elsewhere', 'Cy');
    t.equal((await api.get('isMeetingRunning', [['meetingID', 'elsewhere']])).xml.running, 'true', 'running');
    t.equal(
      (await api.get('getMeetingInfo', [['meetingID', 'elsewhere']])).xml.running,
      'true',
      'getMeetingInfo running (answer kept)',
    );

    const deleted = await d.api(`/api/rooms/${roomId}`, { method: 'DELETE' });
    t.equal(deleted.status, 204, 'the engine room is deleted, its meeting with it');
    t.equal(
      (await api.get('isMeetingRunning', [['meetingID', 'elsewhere']])).xml.running,
      'false',
      'isMeetingRunning false',
    );
    const info = await api.get('getMeetingInfo', [['meetingID', 'elsewhere']]);
    t.equal(info.xml.running, 'false', 'getMeetingInfo not running');
    t.not(info.xml.endTime, '0', 'and ended');
    t.equal(info.xml.hasBeenForciblyEnded, 'false', 'not by end');
    t.equal((await api.get('getMeetings')).xml.messageKey, 'noMeetings', 'no longer listed');
    assertFailed(
      t,
      await api.get('join', [
        ['meetingID', 'elsewhere'],
        ['fullName', 'Late'],
        ['role', 'VIEWER'],
      ]),
      'invalidMeetingIdentifier',
      'join refused',
    );
  },
);

t.test('after SIGKILL a restarted daemon serves the same answers', async (t) => {
  const dataDir = dataDirFor(t);
  const d1 = await compatDaemonOn(t, dataDir);
  const api1 = new ConfapiClient(d1.compatUrl, secret, 'sha256', 'percent');
  const kept = await api1.get('create', [
    ['meetingID', 'kept [1]'],
    ['name', 'Kept & <well>'],
    ['meta_bbb-origin', 'Moodle'],
    ['duration', '600'],
  ]);
  assertSuccess(t, kept, 'create kept');
  const gone = await api1.get('create', [['meetingID', 'gone']]);
  assertSuccess(t, gone, 'create gone');
  assertSuccess(
    t,
    await api1.get('end', [
      ['meetingID', 'gone'],
      ['password', gone.xml.moderatorPW],
    ]),
    'end gone',
  );
  const before = {
    kept: (await api1.get('getMeetingInfo', [['meetingID', 'kept [1]']])).text,
    gone: (await api1.get('getMeetingInfo', [['meetingID', 'gone']])).text,
    list: (await api1.get('getMeetings')).text,
  };
  t.equal(await stopDaemon(d1, 'SIGKILL'), 'SIGKILL', 'killed, nothing flushed on exit');

  const d2 = await compatOn(t, dataDir);
  t.ok(d2.compat.summary().openMeetings === 1, 'the restarted module loaded the one open meeting');
  const api2 = new ConfapiClient(d2.compatUrl, secret, 'sha256', 'percent');
  t.equal(
    (await api2.get('getMeetingInfo', [['meetingID', 'kept [1]']])).text,
    before.kept,
    'getMeetingInfo of the open meeting: the same answer',
  );
  t.equal(
    (await api2.get('getMeetingInfo', [['meetingID', 'gone']])).text,
    before.gone,
    'getMeetingInfo of the ended meeting: the same answer',
  );
  t.equal((await api2.get('getMeetings')).text, before.list, 'getMeetings: the same answer');
  t.equal(
    (await api2.get('isMeetingRunning', [['meetingID', 'gone']])).xml.running,
    'false',
    'the ended meeting stays ended',
  );
  const again = await api2.get('create', [['meetingID', 'kept [1]']]);
  t.equal(again.xml.messageKey, 'duplicateWarning', 'create finds the open meeting');
  t.equal(again.xml.internalMeetingID, kept.xml.internalMeetingID, 'the same meeting');
  const joined = await api2.get('join', [
    ['meetingID', 'kept [1]'],
    ['fullName', 'Di'],
    ['role', 'VIEWER'],
    ['redirect', 'false'],
  ]);
  assertSuccess(t, joined, 'join works on the loaded meeting');
  assertFailed(
    t,
    await api2.get('join', [
      ['meetingID', 'gone'],
      ['fullName', 'Di'],
      ['role', 'VIEWER'],
    ]),
    'meetingForciblyEnded',
    'the ended one refuses joins',
  );
});

t.test('a kept answer never crosses tenants', async (t) => {
  const dataDir = dataDirFor(t);
  const secretA = 'tenant-a-secret-read-model-1';
  const secretB = 'tenant-b-secret-read-model-2';
  const file = join(dataDir, 'tenants.toml');
  writeFileSync(file, `[tenants.a]\napi_secret = "${secretA}"\n\n[tenants.b]\napi_secret = "${secretB}"\n`);
  const d = await compatOn(t, dataDir, { SERVICE_TENANTS_FILE: file });
  const a = new ConfapiClient(d.compatUrl, secretA, 'sha256');
  const b = new ConfapiClient(d.compatUrl, secretB, 'sha1', 'sorted');

  const createdA = await a.get('create', [
    ['meetingID', 'same-id'],
    ['name', 'A only'],
  ]);
  assertSuccess(t, createdA, 'a creates same-id');
  assertSuccess(t, await a.get('create', [['meetingID', 'a-only']]), 'a creates a-only');
  await enter(t, d, a, 'a-only', 'Ann');
  for (let i = 0; i < 2; i++) {
    t.equal(
      (await a.get('getMeetingInfo', [['meetingID', 'same-id']])).xml.meetingName,
      'A only',
      `a reads its answer (${i + 1})`,
    );
    t.equal(
      (await a.get('isMeetingRunning', [['meetingID', 'a-only']])).xml.running,
      'true',
      `a-only runs for a (${i + 1})`,
    );
  }

  assertFailed(
    t,
    await b.get('getMeetingInfo', [['meetingID', 'same-id']]),
    'notFound',
    "b does not get a's kept answer",
  );
  assertFailed(
    t,
    await b.get('getMeetingInfo', [['meetingID', 'a-only']]),
    'notFound',
    "b does not see a's running meeting",
  );
  t.equal(
    (await b.get('isMeetingRunning', [['meetingID', 'a-only']])).xml.running,
    'false',
    "a's meeting is not running for b",
  );

  const createdB = await b.get('create', [
    ['meetingID', 'same-id'],
    ['name', 'B only'],
  ]);
  t.equal(createdB.xml.messageKey, '', "b's create is a new meeting, not a's");
  const infoB = await b.get('getMeetingInfo', [['meetingID', 'same-id']]);
  t.equal(infoB.xml.meetingName, 'B only', "b reads b's meeting");
  t.equal(infoB.xml.internalMeetingID, createdB.xml.internalMeetingID);
  t.not(infoB.xml.internalMeetingID, createdA.xml.internalMeetingID);
  t.equal(
    (await a.get('getMeetingInfo', [['meetingID', 'same-id']])).xml.meetingName,
    'A only',
    "and a still reads a's",
  );
  assertSuccess(
    t,
    await b.get('end', [
      ['meetingID', 'same-id'],
      ['password', createdB.xml.moderatorPW],
    ]),
    'b ends its own',
  );
  t.equal(
    (await a.get('getMeetingInfo', [['meetingID', 'same-id']])).xml.endTime,
    '0',
    "a's meeting of the same id is not ended",
  );
  t.equal((await b.get('getMeetingInfo', [['meetingID', 'same-id']])).xml.hasBeenForciblyEnded, 'true', "b's is");
});
