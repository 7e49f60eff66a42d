// Group commit through the real daemon: knocks that arrive together share one durable commit,
// each 202 is sent only after it, kill -9 right after loses none, and a full disk answers
// every knock of the group with 500 and leaves nobody in the moderators' list.
import t from 'tap';
import { createHash } from 'node:crypto';
import { connect } from 'node:net';
import { join } from 'node:path';
import { assertError, daemonFor, dataDirFor } from '../../helpers/api.js';
import { stopDaemon, type Daemon } from '../../helpers/daemon.js';
import { asSession, createRoom, moderator, names, withAdminToken } from '../../helpers/waiting.js';
import { walCommits } from '../../helpers/wal.js';
import { canMountPrivateTmpfs, inDaemonNamespace, privateTmpfsLauncher } from '../../helpers/private-tmpfs.js';
import { openSqlite } from '../../../src/platform/sqlite.js';

interface RawAnswer {
  readonly status: number;
  readonly headers: Record<string, string>;
  readonly body: string;
}

/**
 * Sends `bodies.length` knocks pipelined on one connection in a single write, so they reach
 * the daemon together, and reads every answer (in order).
 */
function pipelinedKnocks(daemon: Daemon, roomId: string, bodies: readonly unknown[]): Promise<RawAnswer[]> {
  const { hostname, port } = new URL(daemon.url);
  const requests = bodies.map((json) => {
    const body = JSON.stringify(json);
    return `POST /room/${roomId}/knock HTTP/1.1\r\nHost: ${hostname}:${port}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`;
  });
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), hostname);
    const answers: RawAnswer[] = [];
    let buffer = Buffer.alloc(0);
    const timer = setTimeout(() => {
      socket.destroy();
      reject(new Error(`only ${answers.length} of ${bodies.length} answers within 60 s`));
    }, 60_000);
    socket.on('error', reject);
    socket.on('connect', () => socket.write(requests.join('')));
    socket.on('data', (chunk: Buffer) => {
      buffer = Buffer.concat([buffer, chunk]);
      for (;;) {
        const end = buffer.indexOf('\r\n\r\n');
        if (end < 0) break;
        const [statusLine, ...lines] = buffer.subarray(0, end).toString('latin1').split('\r\n');
        const headers = Object.fromEntries(
          lines.map((l) => [l.slice(0, l.indexOf(':')).toLowerCase(), l.slice(l.indexOf(':') + 1).trim()]),
        );
        const length = Number(headers['content-length'] ?? 0);
        if (buffer.length < end + 4 + length) break;
        answers.push({
          status: Number(statusLine!.split(' ')[1]),
          headers,
          body: buffer.subarray(end + 4, end + 4 + length).toString(),
        });
        buffer = buffer.subarray(end + 4 + length);
      }
      if (answers.length === bodies.length) {
        clearTimeout(timer);
        socket.end();
        resolve(answers);
      }
    });
  });
}

const cookieOf = (answer: RawAnswer) => /meet_wait=([^;]+)/.exec(answer.headers['set-cookie'] ?? '')?.[1] ?? null;
const sha256 = (text: string) => createHash('sha256').update(text).digest();

t.test('knocks arriving together share one commit, and kill -9 right after their 202s loses none', async (t) => {
  const dataDir = dataDirFor(t);
  const daemon = await daemonFor(t, { dataDir });
  await createRoom(t, daemon, { room_id: 'burst', name: 'Burst', waiting_room: 'all' });
  const file = join(dataDir, 'meet.sqlite');
  const before = walCommits(file);

  const count = 40;
  const answers = await pipelinedKnocks(
    daemon,
    'burst',
    Array.from({ length: count }, (_, i) => ({ name: `Pupil ${i}`, note: `seat ${i}` })),
  );
  // The power cut stand-in comes right after the last answer.
  t.equal(await stopDaemon(daemon, 'SIGKILL'), 'SIGKILL');
  const cookies = answers.map(cookieOf);
  t.ok(
    answers.every((a) => a.status === 202),
    `every knock acknowledged (${answers.map((a) => a.status).join(',')})`,
  );
  t.ok(
    cookies.every((c) => c !== null),
    'each with its cookie',
  );

  const after = walCommits(file);
  t.equal(after.generation, before.generation, 'the log was not restarted during the burst');
  const commits = after.commits - before.commits;
  t.ok(commits >= 1 && commits <= count / 4, `the ${count} knocks took ${commits} commits, not one each`);

  const db = openSqlite(file, { readonly: true });
  const stored = new Set(
    (db.prepare("SELECT secret_hash FROM waiting_requests WHERE state = 'waiting'").pluck().all() as Buffer[]).map(
      (b) => b.toString('hex'),
    ),
  );
  db.close();
  const missing = cookies.filter((c) => c !== null && !stored.has(sha256(c).toString('hex')));
  t.same(missing, [], 'every acknowledged request is on disk after SIGKILL');
});

t.test(
  'a full disk: every knock of the group is answered 500 after the failed commit; nobody is listed; service goes on',
  { skip: !canMountPrivateTmpfs() && 'needs root and unshare to give the daemon a small tmpfs of its own' },
  async (t) => {
    const dataDir = dataDirFor(t);
    // The data directory becomes a 4 MiB tmpfs seen only by the daemon (gone with it).
    const started = await daemonFor(t, {
      dataDir,
      launcher: privateTmpfsLauncher(dataDir, '4m'),
    });
    // Its first admin token is on that tmpfs too.
    const daemon = withAdminToken(started, inDaemonNamespace(started, `cat "${dataDir}/initial-admin-token"`).trim());
    await createRoom(t, daemon, { room_id: 'full', name: 'Full disk', waiting_room: 'all' });
    const mod = await moderator(daemon, 'full');
    const first = await pipelinedKnocks(daemon, 'full', [{ name: 'Before', note: '' }]);
    t.equal(first[0]!.status, 202, 'a knock while there is room');

    inDaemonNamespace(daemon, `cat /dev/zero > "${dataDir}/filler" 2>/dev/null; true`);
    const failed = await pipelinedKnocks(
      daemon,
      'full',
      Array.from({ length: 10 }, (_, i) => ({ name: `Pupil ${i}`, note: 'n'.repeat(280) })),
    );
    t.same(
      failed.map((a) => a.status),
      Array(10).fill(500),
      'every knock of the group answered 500',
    );
    for (const answer of failed) {
      t.same(
        JSON.parse(answer.body),
        { error: { code: 'internal_error', message: 'internal error; the log has the details' } },
        'the stable error shape',
      );
      t.equal(cookieOf(answer), null, 'and no cookie');
    }
    const list = await asSession.list(daemon, 'full', mod.session);
    t.same(names(list), ['Before'], 'the moderators see none of them');

    inDaemonNamespace(daemon, `rm -f "${dataDir}/filler"`);
    const after = await pipelinedKnocks(daemon, 'full', [{ name: 'After', note: '' }]);
    t.equal(after[0]!.status, 202, 'the daemon goes on once the disk has room');
    t.same(names(await asSession.list(daemon, 'full', mod.session)), ['Before', 'After']);
    assertError(t, await asSession.list(daemon, 'full', null), 401, 'unauthorized');
  },
);
