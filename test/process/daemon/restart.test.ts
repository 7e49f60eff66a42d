import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import t from 'tap';
import { assertError, call, daemonFor, dataDirFor, logRecords, rooms } from '../../helpers/api.js';
import { stopDaemon } from '../../helpers/daemon.js';

const tokenFile = (dataDir: string) => join(dataDir, 'initial-admin-token');

// One data directory, two daemons: the first is killed with SIGKILL, the second starts on what
// it left and is then stopped with SIGTERM. Each step checks its own part: the initial admin
// token (written once, kept across a restart), the rooms (written through, no stop needed), the
// clean stop (exit 0, "stopped" last).
t.test(
  'rooms and the initial admin token survive a SIGKILL and a restart; SIGTERM stops the daemon cleanly',
  async (t) => {
    const dataDir = dataDirFor(t);
    const first = await daemonFor(t, { dataDir });
    const file = tokenFile(dataDir);
    t.equal(statSync(file).mode & 0o777, 0o600, 'the token file is readable by its owner only');
    t.match(first.adminToken, /^mt_[A-Za-z0-9_-]{43,}$/, 'the file holds a URL-safe token');
    t.ok(
      logRecords(first).some((record) => record.file === file && String(record.msg).includes(file)),
      'the first start prints where the token was written',
    );
    const written = statSync(file);
    const bodies = [
      { room_id: 'alpha', name: 'Alpha' },
      {
        room_id: 'beta',
        name: 'Beta',
        waiting_room: 'guests',
        waiting_room_mode: 'until_moderator',
        waiting_room_timeout_secs: 30,
      },
      {
        room_id: 'gamma.1',
        name: 'Gamma ünïcode ✓',
        waiting_room: 'all',
        waiting_room_timeout_secs: 3600,
        access_code: 'code-1234',
      },
      { room_id: 'delta_2', name: 'Delta', waiting_room: 'off', waiting_room_mode: 'approval' },
    ];
    for (const body of bodies) t.equal((await rooms.create(first, body)).status, 201, `created ${body.room_id}`);
    t.equal((await rooms.patch(first, 'alpha', { name: 'Alpha renamed', waiting_room_timeout_secs: 45 })).status, 200);
    t.equal((await rooms.delete(first, 'delta_2')).status, 204);
    const before = (await rooms.list(first)).body.rooms;
    t.equal(before.length, 3);

    t.equal(await stopDaemon(first, 'SIGKILL'), 'SIGKILL', 'the first daemon was killed');

    const second = await daemonFor(t, { dataDir });
    const again = statSync(file);
    t.equal(readFileSync(file, 'utf8').trim(), first.adminToken, 'the file still holds the first token');
    t.same(
      [again.ino, again.mtimeMs, again.mode & 0o777],
      [written.ino, written.mtimeMs, 0o600],
      'the file was not rewritten',
    );
    t.notOk(
      logRecords(second).some((record) => 'file' in record || /token written/.test(String(record.msg))),
      'no new token is issued on a restart',
    );
    const wrongToken = first.adminToken.slice(0, -1) + (first.adminToken.endsWith('A') ? 'B' : 'A');
    const wrong = await call(second, '/api/rooms', { token: wrongToken });
    assertError(t, wrong, 401, 'unauthorized');
    t.match(wrong.headers.get('www-authenticate'), /^Bearer\b/);

    const token = first.adminToken;
    const after = await call(second, '/api/rooms', { token });
    t.equal(after.status, 200, 'the initial token works after the restart');
    t.same(after.body.rooms, before, 'every room is there with the same fields, the deleted one is still gone');
    for (const room of before)
      t.same((await call(second, `/api/rooms/${room.room_id}`, { token })).body, room, `GET ${room.room_id}`);
    t.match(
      before.find((r: { room_id: string }) => r.room_id === 'alpha'),
      { name: 'Alpha renamed', waiting_room_timeout_secs: 45 },
      'the PATCH survived',
    );
    t.equal(
      before.find((r: { room_id: string }) => r.room_id === 'gamma.1').access_code_set,
      true,
      'the access code survived',
    );

    t.equal(await stopDaemon(second, 'SIGTERM'), 0, 'SIGTERM: exit code 0');
    const messages = logRecords(second).map((record) => record.msg);
    t.ok(messages.includes('stopping'), 'logs stopping');
    t.equal(messages.at(-1), 'stopped', 'logs stopped last');
  },
);
