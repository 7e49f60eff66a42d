import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import t from 'tap';
import { assertError, call, daemonFor, dataDirFor } from '../../helpers/api.js';
import { runCli } from '../../helpers/cli.js';
import { runMeetctl } from '../../helpers/daemon.js';

const tokenPattern = /^mt_[A-Za-z0-9_-]{43,}$/;

t.test('help', async (t) => {
  const subcommands = ['create', 'list', 'revoke'];
  // bin/meetctl.js itself for the top help and the unknown command (its exit status as a shell sees it); the rest in this process.
  const [top, real, serve, token, unknown, ...subs] = await Promise.all([
    runCli(['--help']),
    runMeetctl(['--help'], {}, true),
    runCli(['serve', '--help']),
    runCli(['token', '--help']),
    runMeetctl(['no-such-command']),
    ...subcommands.map((sub) => runCli(['token', sub, '--help'])),
  ]);
  for (const [help, what] of [
    [top, 'meetctl --help'],
    [real, 'bin/meetctl --help itself'],
  ] as const) {
    t.equal(help.code, 0, `${what} exits 0`);
    t.match(help.stdout, /Usage: meetctl/);
    t.match(help.stdout, /^\s+serve\b/m, 'lists serve');
    t.match(help.stdout, /^\s+token\b/m, 'lists token');
  }
  t.equal(serve.code, 0);
  t.match(serve.stdout, /Usage: meetctl serve/);
  t.match(serve.stdout, /--data-dir <value>.*SERVICE_DATA_DIR/s, 'names the flag and its variable');
  t.match(serve.stdout, /--waiting-room <value>.*SERVICE_WAITING_ROOM/s);
  t.match(serve.stdout, /--config <file>/);
  t.equal(token.code, 0);
  subcommands.forEach((sub, i) => {
    t.match(token.stdout, new RegExp(`^\\s+${sub}\\b`, 'm'), `token --help lists ${sub}`);
    t.equal(subs[i]!.code, 0, `token ${sub} --help exits 0`);
    t.match(subs[i]!.stdout, new RegExp(`Usage: meetctl token ${sub}`));
  });
  t.match(subs[0]!.stdout, /--name <name>/);
  t.equal(unknown.code, 64, 'an unknown command fails with the usage status');
});

t.test('token create, list, revoke', async (t) => {
  const dataDir = dataDirFor(t);
  const env = { SERVICE_DATA_DIR: dataDir };

  const created = await runCli(['token', 'create', '--name', 'ci', '--init'], env);
  t.equal(created.code, 0, created.stderr);
  const ciToken = created.stdout.trim();
  t.match(ciToken, tokenPattern, 'prints a URL-safe token of at least 32 random bytes');
  t.equal(created.stdout, `${ciToken}\n`, 'stdout holds the token and nothing else');
  t.match(created.stderr, /shown only this once/);

  const other = await runCli(['token', 'create', '--name', 'other', '--data-dir', dataDir]);
  t.equal(other.code, 0, '--data-dir works as well as SERVICE_DATA_DIR');
  const otherToken = other.stdout.trim();
  t.match(otherToken, tokenPattern);
  t.not(otherToken, ciToken, 'every token is new');

  const twice = await runCli(['token', 'create', '--name', 'ci'], env);
  t.equal(twice.code, 1, 'the same name twice is refused');
  t.equal(twice.stdout, '', 'and prints no token');
  t.match(twice.stderr, /ci exists already/);
  t.equal((await runCli(['token', 'create', '--name', 'not valid/'], env)).code, 1, 'an invalid name is refused');

  const table = await runCli(['token', 'list'], env);
  t.equal(table.code, 0);
  t.match(table.stdout, /^NAME\s+CREATED\s+LAST USED$/m);
  t.match(table.stdout, /^ci\s+\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z\s+never$/m, 'name, creation time, last use');
  t.match(table.stdout, /^other\s/m);

  const json = await runCli(['token', 'list', '--json'], env);
  t.equal(json.code, 0);
  const listed = JSON.parse(json.stdout) as Record<string, unknown>[];
  t.same(
    listed.map((row) => Object.keys(row).sort()),
    [
      ['created_at', 'last_used_at', 'name'],
      ['created_at', 'last_used_at', 'name'],
    ],
  );
  t.same(listed.map((row) => row.name).sort(), ['ci', 'other']);
  t.ok(listed.every((row) => Number.isFinite(Date.parse(String(row.created_at))) && row.last_used_at === null));
  for (const output of [table.stdout, table.stderr, json.stdout, json.stderr]) {
    t.notOk(output.includes(ciToken) || output.includes(otherToken), 'the list never shows a token');
    t.notOk(output.includes(ciToken.slice(3, 20)), 'nor a piece of one');
  }

  const daemon = await daemonFor(t, { dataDir });
  t.equal((await call(daemon, '/api/rooms', { token: ciToken })).status, 200, 'the daemon accepts a created token');
  t.equal((await call(daemon, '/api/rooms', { token: otherToken })).status, 200);
  const used = JSON.parse((await runCli(['token', 'list', '--json'], env)).stdout) as Record<string, unknown>[];
  t.ok(
    used.every((row) => Number.isFinite(Date.parse(String(row.last_used_at)))),
    'list shows the last use',
  );

  const revoked = await runCli(['token', 'revoke', 'ci'], env);
  t.equal(revoked.code, 0, revoked.stderr);
  t.match(revoked.stdout, /revoked ci/);
  const refused = await call(daemon, '/api/rooms', { token: ciToken });
  assertError(t, refused, 401, 'unauthorized');
  t.match(refused.headers.get('www-authenticate'), /^Bearer\b/);
  t.equal((await call(daemon, '/api/rooms', { token: otherToken })).status, 200, 'a token still valid keeps working');
  t.same(
    (JSON.parse((await runCli(['token', 'list', '--json'], env)).stdout) as { name: string }[]).map((row) => row.name),
    ['other'],
    'the revoked token is gone from the list',
  );

  const unknown = await runCli(['token', 'revoke', 'nobody'], env);
  t.equal(unknown.code, 1, 'revoking an unknown name fails');
  t.match(unknown.stderr, /no token is named nobody/);
  t.equal((await runCli(['token', 'revoke', 'ci'], env)).code, 1, 'revoking twice fails');
});

t.test('an invalid configuration exits 2 naming the problem', async (t) => {
  const dataDir = dataDirFor(t);
  const bad = await runCli(['serve'], {
    SERVICE_DATA_DIR: dataDir,
    SERVICE_HTTP_ADDR: '127.0.0.1:0',
    SERVICE_WAITING_ROOM: 'sometimes',
  });
  t.equal(bad.code, 2);
  t.match(bad.stderr, 'SERVICE_WAITING_ROOM must be one of optional, forced, off (got "sometimes")');
  t.equal(bad.stdout, '', 'nothing was started');

  const configFile = join(dataDir, 'meet.toml');
  writeFileSync(configFile, '[service]\nwaiting_room = "forced"\nhttp_addr = = 3\n');
  const malformed = await runCli(['serve', '--config', configFile], {
    SERVICE_DATA_DIR: dataDir,
    SERVICE_HTTP_ADDR: '127.0.0.1:0',
  });
  t.equal(malformed.code, 2);
  t.match(malformed.stderr, /line 3, column \d+/, 'names the line and column');
  t.match(malformed.stderr, `${configFile}:3:`);
  t.equal(malformed.stdout, '');

  const flag = await runCli(['serve', '--waiting-room-mode', 'vote'], { SERVICE_DATA_DIR: dataDir });
  t.equal(flag.code, 2, 'a bad flag value too');
  t.match(flag.stderr, /SERVICE_WAITING_ROOM_MODE must be one of approval, until_moderator.*flag --waiting-room-mode/);
});
