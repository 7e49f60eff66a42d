// Issue 34 point 5 for the meeting API: its service-level calls once more on PostgreSQL, in
// process (compatAppFor, `inject`): create, join, getMeetingInfo, isMeetingRunning, getMeetings
// and end, on SQLite (the module's default: confapi.sqlite behind the asynchronous port) and on
// PostgreSQL (engine and meeting API both, from the one store bundle the daemon opens for
// SERVICE_DATABASE_URL, the meeting API on the engine's unit of work). Without PostgreSQL's binaries the PostgreSQL half is reported as skipped, by name.
// Also issue 34 point 2/4: NUL and other control characters (and bytes that are not UTF-8) in
// create's free-text parameters are refused with FAILED XML naming the parameter, on both stores.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { Test } from 'tap';
import { compatDatabaseFileName } from '../../../src/compat/store/compat-store.js';
import { PostgresCompatStore } from '../../../src/compat/store/postgres-store.js';
import { databaseFileName } from '../../../src/store/database.js';
import { PostgresUnitOfWork } from '../../../src/store/postgres/unit-of-work.js';
import { compatAppFor } from '../../helpers/compat-app.js';
import {
  assertFailed,
  assertSuccess,
  ConfapiClient,
  fetchAnswer,
  roomAndToken,
  sign,
  startWithToken,
} from '../../helpers/compat.js';
import { pool } from '../../helpers/compat-store-adapters.js';
import { onEachServiceStore, type ServiceStore } from '../../helpers/service-stores.js';

const secret = 'both-stores-secret-0123456789';

async function appOn(t: Test, store: ServiceStore) {
  const app = await compatAppFor(t, { store, env: { COMPAT_API_SHARED_SECRET: secret } });
  return { app, api: new ConfapiClient(app.compatUrl, secret) };
}

onEachServiceStore('the meeting API: create, join, info, running, list, end', async (t, store) => {
  const { app, api } = await appOn(t, store);
  const meetingID = 'physics-101';
  const created = await api.get('create', [
    ['meetingID', meetingID],
    ['name', 'Physics 101 – Grüße'],
    ['moderatorPW', 'mod-pw'],
    ['attendeePW', 'att-pw'],
    ['welcome', 'Welcome!\nLine two'],
    ['meta_origin', 'Moodle'],
  ]);
  assertSuccess(t, created, 'create');
  const again = await api.get('create', [['meetingID', meetingID]]);
  assertSuccess(t, again, 'create again');
  t.equal(again.xml.messageKey, 'duplicateWarning', 'a duplicate');
  t.equal(again.xml.internalMeetingID, created.xml.internalMeetingID, 'of the same meeting');

  const listed = await api.get('getMeetings');
  assertSuccess(t, listed, 'getMeetings');
  t.match(listed.text, /<meetingName>Physics 101 – Grüße<\/meetingName>/, 'the name, as sent');

  const joined = await api.get('join', [
    ['meetingID', meetingID],
    ['fullName', 'Ada'],
    ['password', 'mod-pw'],
    ['redirect', 'false'],
  ]);
  assertSuccess(t, joined, 'join');
  const { roomId, token } = roomAndToken(joined.xml.url);
  const entered = await startWithToken(app, roomId, token, 'Ada');
  t.match(entered.body, { status: 'joined' }, 'the join link enters the room');

  const info = await api.get('getMeetingInfo', [['meetingID', meetingID]]);
  assertSuccess(t, info, 'getMeetingInfo');
  t.equal(info.xml.hasUserJoined, 'true', 'the engine meeting is linked (written to the store)');
  t.equal(info.xml.metadata?.origin, 'Moodle', 'metadata kept');

  assertFailed(
    t,
    await api.get('end', [
      ['meetingID', meetingID],
      ['password', 'wrong'],
    ]),
    'invalidPassword',
    'end',
  );
  assertSuccess(
    t,
    await api.get('end', [
      ['meetingID', meetingID],
      ['password', 'mod-pw'],
    ]),
    'end',
  );
  const running = await api.get('isMeetingRunning', [['meetingID', meetingID]]);
  t.equal(running.xml.running, 'false', 'not running once ended');
  const ended = await api.get('getMeetingInfo', [['meetingID', meetingID]]);
  assertSuccess(t, ended, 'getMeetingInfo after the end');
  t.equal(ended.xml.hasBeenForciblyEnded, 'true', 'forcibly ended');
  t.equal((await api.get('getMeetings')).xml.messageKey, 'noMeetings', 'no meeting listed');

  if (store.database) {
    // Read back over a connection of its own: committed, not only in the app's memory.
    const another = new PostgresCompatStore(new PostgresUnitOfWork(pool(t, store.database)));
    const rows = await another.meeting(String(created.xml.internalMeetingID));
    t.equal(rows?.endReason, 'end', 'PostgreSQL holds the ended meeting');
    t.notOk(existsSync(join(app.config.compatApiDataDir, compatDatabaseFileName)), 'and no SQLite file was made');
    t.notOk(existsSync(join(app.dataDir, databaseFileName)), "nor the engine's");
  }
});

/** Parameters of create that are stored as text, and the word their refusal names them with. */
const textParams: readonly (readonly [string, RegExp])[] = [
  ['name', /name/],
  ['attendeePW', /attendeePW/],
  ['moderatorPW', /moderatorPW/],
  ['voiceBridge', /Voice bridge/],
  ['dialNumber', /dialNumber/],
  ['welcome', /welcome/],
  ['moderatorOnlyMessage', /moderatorOnlyMessage/],
  ['bannerText', /bannerText/],
  ['logoutURL', /logoutURL/],
  ['meta_origin', /meta_origin/],
];

/** Raw escapes: NUL, an overlong NUL (not UTF-8), BEL, DEL, a C1 control, an escape character. */
const oddValues = ['a%00b', 'a%C0%80b', '%07', 'x%7F', '%C2%85', '%1B%5B2J'];

onEachServiceStore('create refuses control characters in its text parameters, naming them', async (t, store) => {
  const { app, api } = await appOn(t, store);
  let n = 0;
  for (const [param, named] of textParams) {
    for (const value of oddValues) {
      // Signed over the raw query, so the escape reaches the server as written.
      const query = `meetingID=odd-${(n += 1)}&${param}=${value}`;
      const url = `${app.compatUrl}/confapi/api/create?${query}&checksum=${sign('create', query, secret)}`;
      const answer = await fetchAnswer(url);
      assertFailed(t, answer, 'validationError', `${param}=${value}`);
      t.match(answer.xml.message, named, `${param}=${value}: the message names the parameter`);
    }
  }
  t.equal((await api.get('getMeetings')).xml.messageKey, 'noMeetings', 'nothing was created');
  // Line breaks and tabs stay allowed where a text may span lines.
  const query = 'meetingID=lines&welcome=Hello%0D%0Aworld%09!&meta_note=a%0Ab';
  const lines = await fetchAnswer(
    `${app.compatUrl}/confapi/api/create?${query}&checksum=${sign('create', query, secret)}`,
  );
  assertSuccess(t, lines, 'a welcome and metadata over lines');
});
