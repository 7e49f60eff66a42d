// Issue 35 point 6: a meeting's Janus dies and its pages publish again on another one. A daemon
// with SERVICE_JANUS_URLS over two real Janus servers (one API secret and admin key for both)
// places the meeting on one; a werift page publishes a camera there and another receives it. The
// server is killed (SIGKILL, not restarted): the daemon marks it dead, places the meeting on the
// other server, makes its room there and tells the pages to offer again; the camera is published
// on the other server within 10 s and the second page receives it again. On SQLite and PostgreSQL.
import Database from 'better-sqlite3';
import path from 'node:path';
import postgres from 'postgres';
import t, { type Test } from 'tap';
import { LiveSocket } from '../../../../bench/lib/synthetic-peer.js';
import { JanusSession } from '../../../../src/media/janus/janus-session.js';
import { VideoRoomHandle } from '../../../../src/media/janus/videoroom.js';
import { janusFor } from '../../../helpers/janus.js';
import { janusMediaSkip, janusMeeting } from '../../../helpers/janus-peers.js';
import { until } from '../../../helpers/net.js';
import { freshDatabase, postgresSkip, type PostgresDatabase } from '../../../helpers/postgres.js';
import { SfuPage } from '../../../helpers/sfu-page.js';

const secrets = { apiSecret: 'failover-api-secret-0123', roomAdminKey: 'failover-admin-key-01234' };

interface Placements {
  readonly placements: () => Promise<{ meeting: string; url: string }[]>;
  readonly loads: () => Promise<{ url: string; load: number; down: unknown }[]>;
}

/** The daemon's placements as an operator reads them: its SQLite file. */
function sqlitePlacements(t: Test, dataDir: string): Placements {
  const db = new Database(path.join(dataDir, 'meet.sqlite'), { readonly: true, fileMustExist: true });
  t.teardown(() => db.close());
  return {
    placements: async () =>
      db.prepare('SELECT meeting_id AS meeting, url FROM janus_placements').all() as { meeting: string; url: string }[],
    loads: async () =>
      db.prepare('SELECT url, load, down_since AS down FROM janus_servers ORDER BY url').all() as {
        url: string;
        load: number;
        down: string | null;
      }[],
  };
}

/** The same on PostgreSQL. */
function postgresPlacements(t: Test, database: PostgresDatabase): Placements {
  const sql = postgres({ ...database.options, max: 1 });
  t.teardown(() => sql.end({ timeout: 5 }));
  return {
    placements: async () => [
      ...(await sql<{ meeting: string; url: string }[]>`
        SELECT meeting_id AS meeting, url FROM meet_engine.janus_placements`),
    ],
    loads: async () => [
      ...(await sql<{ url: string; load: number; down: Date | null }[]>`
        SELECT url, load, down_since AS down FROM meet_engine.janus_servers ORDER BY url`),
    ],
  };
}

const stores: [string, number][] = [
  ['SQLite', 44_000],
  ['PostgreSQL', 45_400],
];

for (const [store, ports] of stores) {
  const skip = janusMediaSkip || (store === 'PostgreSQL' ? (postgresSkip() ?? false) : false);
  t.test(`${store}: a meeting whose Janus dies publishes again on another one`, { skip }, async (t) => {
    const database = store === 'PostgreSQL' ? await freshDatabase(t) : null;
    const servers = [await janusFor(t, ports, secrets), await janusFor(t, ports + 300, secrets)].map((s) => s.janus);
    const urls = servers.map((janus) => janus.endpoint.url);
    const meeting = await janusMeeting(t, `${ports + 600}-${ports + 700}`, {
      SERVICE_JANUS_URLS: urls.join(','),
      SERVICE_JANUS_API_SECRET: secrets.apiSecret,
      SERVICE_JANUS_ROOM_ADMIN_KEY: secrets.roomAdminKey,
      ...(database ? { SERVICE_DATABASE_URL: database.url } : {}),
    });
    const page = async (name: string, publishes: boolean) => {
      const live = await LiveSocket.open(meeting.daemon.url, meeting.roomId, await meeting.pupil(name));
      const made = new SfuPage(live, publishes);
      t.teardown(() => made.close());
      return made;
    };
    const ann = await page('Ann', true);
    const bob = await page('Bob', false);
    await until('Bob to receive Ann’s camera', async () => bob.videoReceived >= 20, 20_000, 100);

    const { placements, loads } = database
      ? postgresPlacements(t, database)
      : sqlitePlacements(t, meeting.daemon.dataDir);
    const [placed] = await placements();
    t.ok(placed && urls.includes(placed.url), 'the meeting is placed on one of the two servers');
    const deadIndex = urls.indexOf(placed!.url);
    const dead = servers[deadIndex]!;
    const other = servers[1 - deadIndex]!;
    t.same((await loads()).map((row) => row.load).sort(), [0, 1], 'its server carries its load');

    const killedAt = Date.now();
    process.kill(dead.pid ?? 0, 'SIGKILL');
    await dead.stop();

    // Ann publishes again on the other server: Janus lists her there as a publisher.
    const session = await JanusSession.create(other.endpoint);
    t.teardown(() => session.destroy());
    const look = await VideoRoomHandle.attach(session, other.roomAdminKey);
    const room = `m-${placed!.meeting}`;
    const publishing = async () =>
      (await look.participants(room).catch(() => [])).some((p) => p.publisher) && ann.publishing === 'connected';
    await until('Ann to publish on the other server', publishing, 10_000, 100);
    t.comment(`published again ${Date.now() - killedAt} ms after the kill`);
    t.ok(ann.rollbacks >= 1 && bob.rollbacks >= 1, 'both pages were told to offer again');
    await until('Bob to receive Ann’s camera again', async () => bob.videoReceived >= 20, 20_000, 100);
    t.same(
      await placements(),
      [{ meeting: placed!.meeting, url: other.endpoint.url }],
      'the meeting is placed on the other server',
    );
    const after = new Map((await loads()).map((row) => [row.url, row]));
    t.equal(after.get(dead.endpoint.url)?.load, 0, 'the dead server’s load moved with it');
    t.not(after.get(dead.endpoint.url)?.down, null, 'the dead server is marked dead');
    t.equal(after.get(other.endpoint.url)?.load, 1);
    t.same(ann.errors.concat(bob.errors), [], 'no page met an error');
    const said = meeting.daemon.lines.find((line) => line.includes('the Janus session was lost'));
    t.match(said, dead.endpoint.url, 'the log names the server that was lost');
    t.notMatch(meeting.daemon.lines.join('\n'), secrets.apiSecret, 'and never the secret');
  });
}
