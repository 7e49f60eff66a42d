// meetctl user (issue 32) against a running daemon in this process: the first start's admin
// account and its link, the commands' one-time links and --password-file, and the daemon seeing
// at once what the commands changed in the database (a disabled account's session ends).
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import t from 'tap';
import { dataDirFor, logRecords } from '../../helpers/api.js';
import { runCli } from '../../helpers/cli.js';
import { inProcessDaemonFor, type InProcessDaemon } from '../../helpers/in-process-daemon.js';

const good = 'Korrekt-Pferd-Batterie';
const linkPattern = /^http:\/\/localhost:3000\/set-password#([A-Za-z0-9_-]{43})$/;

const post = (d: InProcessDaemon, path: string, body: unknown, headers: Record<string, string> = {}) =>
  fetch(`${d.url}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify(body),
  });

async function signIn(d: InProcessDaemon, email: string, password: string): Promise<Response> {
  return post(d, '/api/session', { email, password });
}

t.test('meetctl user with the daemon running', async (t) => {
  const dataDir = dataDirFor(t);
  const d = await inProcessDaemonFor(t, dataDir);
  const cli = (args: string[], stdin?: string) => runCli(['user', ...args, '--data-dir', dataDir], {}, stdin);

  // The first start made an admin account and wrote its one-time link beside the admin token.
  const linkFile = join(dataDir, 'initial-admin-link');
  const firstLink = readFileSync(linkFile, 'utf8').trim();
  const record = logRecords(d).find((r) => String(r.msg).startsWith('first admin account'));
  t.match(record, { account: /^admin@/, file: linkFile }, 'the start says which account and where its link is');
  t.notOk(
    d.lines.some((line) => line.includes(firstLink.split('#')[1]!)),
    'the log holds no link secret',
  );
  const firstToken = /#([\w-]{43})$/.exec(firstLink)![1]!;
  t.equal((await post(d, '/api/password', { token: firstToken, password: good })).status, 200, 'the link sets it');
  const admin = await (await signIn(d, String(record!.account), good)).json();
  t.equal(admin.account.admin, true, 'an admin account');

  const added = await cli(['add', 'Bob@School.example', '--name', 'Bob Lehrer']);
  t.equal(added.code, 0, added.stderr);
  const token = linkPattern.exec(added.stdout.trim())?.[1];
  t.ok(token, `one line, the link: ${added.stdout}`);
  t.match(added.stderr, /bob@school\.example.*72 h/);
  t.equal((await post(d, '/api/password', { token, password: good })).status, 200);
  t.equal((await signIn(d, 'bob@school.example', good)).status, 200);

  const fileDir = dataDirFor(t);
  writeFileSync(join(fileDir, 'pw'), `${good}\n`);
  const fromFile = await cli(['add', 'carl@school.example', '--admin', '--password-file', join(fileDir, 'pw')]);
  t.equal(fromFile.code, 0, fromFile.stderr);
  t.notMatch(fromFile.stdout, /set-password/, 'no link when the password is given');
  t.equal((await signIn(d, 'carl@school.example', good)).status, 200, 'the final line break is not part of it');
  const fromStdin = await cli(['add', 'dina@school.example', '--password-file', '-'], `${good}\n`);
  t.equal(fromStdin.code, 0, fromStdin.stderr);
  t.equal((await signIn(d, 'dina@school.example', good)).status, 200, 'from standard input');

  const weak = await cli(['add', 'eve@school.example', '--password-file', '-'], 'password1234');
  t.equal(weak.code, 1);
  t.match(weak.stderr, /password is one of the most common/);
  const missingFile = await cli(['add', 'eve@school.example', '--password-file', join(fileDir, 'nope')]);
  t.equal(missingFile.code, 1);
  t.match(missingFile.stderr, /--password-file/);
  const dup = await cli(['add', 'BOB@school.example']);
  t.equal(dup.code, 1);
  t.match(dup.stderr, /exists already/);
  const bad = await cli(['add', 'bob\u200b@school.example']);
  t.equal(bad.code, 1);
  t.match(bad.stderr, /email must be one address/);

  const list = await cli(['list', '--json']);
  t.equal(list.code, 0, list.stderr);
  const rows = JSON.parse(list.stdout) as { email: string; admin: boolean; password_set: boolean }[];
  t.same(
    rows.map((r) => r.email),
    [String(record!.account), 'bob@school.example', 'carl@school.example', 'dina@school.example'].sort(),
    'eve was not left behind by the refused password',
  );
  t.notOk(list.stdout.includes('scrypt'), 'never a hash');
  t.match((await cli(['list'])).stdout, /EMAIL\s+NAME\s+ROLE\s+STATE\s+SOURCE\n/);
  const show = await cli(['show', 'carl@school.example', '--json']);
  t.match(JSON.parse(show.stdout), { email: 'carl@school.example', admin: true, disabled: false, password_set: true });
  t.equal((await cli(['show', 'nobody@school.example'])).code, 1);

  // Disabling from the command line ends the daemon's session for her at once.
  const session = await signIn(d, 'bob@school.example', good);
  const cookie = /^meet_account=[^;]+/.exec(session.headers.get('set-cookie') ?? '')![0];
  t.equal((await fetch(`${d.url}/api/me`, { headers: { cookie } })).status, 200);
  const disabled = await cli(['disable', 'bob@school.example']);
  t.equal(disabled.code, 0, disabled.stderr);
  t.equal((await fetch(`${d.url}/api/me`, { headers: { cookie } })).status, 401, 'the session ended at once');
  t.equal((await signIn(d, 'bob@school.example', good)).status, 401, 'and she cannot sign in');
  t.equal((await cli(['disable', 'bob@school.example', '--enable'])).code, 0);
  t.equal((await signIn(d, 'bob@school.example', good)).status, 200, 'enabled again');

  const reset = await cli(['reset', 'bob@school.example']);
  t.equal(reset.code, 0, reset.stderr);
  const resetToken = linkPattern.exec(reset.stdout.trim())?.[1];
  t.equal((await signIn(d, 'bob@school.example', good)).status, 401, 'reset clears the password');
  t.equal((await post(d, '/api/password', { token: resetToken, password: 'Heftklammer-Tafel-7' })).status, 200);
  t.equal((await signIn(d, 'bob@school.example', 'Heftklammer-Tafel-7')).status, 200);

  t.equal((await cli(['remove', 'bob@school.example'])).code, 0);
  t.equal((await signIn(d, 'bob@school.example', 'Heftklammer-Tafel-7')).status, 401, 'removed');
  t.equal((await cli(['remove', 'bob@school.example'])).code, 1, 'twice: not found');
});
