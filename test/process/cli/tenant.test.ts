// Issue 13 point 3: `meetctl tenant` against real files: the file keeps the operator's bytes,
// stays 0600, refuses duplicates (the primary tenant included), never prints a secret unless
// asked, and refuses bad input, links, directories and files it cannot edit safely.
import { execFile } from 'node:child_process';
import { chownSync, lstatSync, mkdirSync, readFileSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import t from 'tap';
import { parseRegistry } from '../../../src/compat/tenants/parse.js';
import { meetctl, type CliResult } from '../../helpers/daemon.js';
import {
  assertMode,
  assertNoSecret,
  generated,
  moodleSecret,
  primary,
  sample,
  schoolAppSecret,
  setup,
  tenant,
} from '../../helpers/tenants.js';

t.test('add, list, show, rotate, remove on a file with comments', async (t) => {
  const s = setup(t);
  writeFileSync(s.file, sample, { mode: 0o644 });

  const added = await tenant(s, ['add', 'acme']);
  t.equal(added.code, 0, `add: ${added.stderr}`);
  const acme = generated(added.stdout);
  t.match(acme.api_secret, /^[A-Za-z0-9_-]{43}$/, 'a generated secret: 32 random bytes, base64url, printed once');
  s.secrets.add(acme.api_secret!);
  t.match(added.stderr, /Tenant acme added to .*tenants\.toml/, 'stderr says where');
  t.match(
    added.stderr,
    /warning: SERVICE_TENANTS_FILE is set neither in the environment nor in .*meet\.env/,
    'and that the service is not told to read the default file',
  );
  const named = await tenant(s, ['list'], { SERVICE_TENANTS_FILE: s.file });
  t.notMatch(named.stderr, /warning/, 'no warning when the file is named');
  assertNoSecret(t, s, added.stderr, 'add stderr');
  const afterAdd = readFileSync(s.file, 'utf8');
  t.ok(afterAdd.startsWith(sample), 'every byte of the file before is kept');
  t.equal(afterAdd.slice(sample.length), `\n[tenants.acme]\napi_secret = "${acme.api_secret}"\n`, 'one block appended');
  assertMode(t, s.file, 'after add (it was 0644)');

  const app = await tenant(s, ['add', 'portal.v2', '--generate-app']);
  t.equal(app.code, 0, `add --generate-app: ${app.stderr}`);
  const portal = generated(app.stdout);
  t.match(portal.app_id, /^portal\.v2-[0-9a-f]{8}$/, 'a readable app id');
  t.match(portal.app_secret, /^[A-Za-z0-9_-]{43}$/);
  t.notOk('api_secret' in portal, 'no meeting-API secret asked for, none made');
  s.secrets.add(portal.app_secret!);
  t.match(
    readFileSync(s.file, 'utf8'),
    /\[tenants\."portal\.v2"\]\napp_id = "portal\.v2-[0-9a-f]{8}"\n/,
    'a dotted id is quoted',
  );

  const list = await tenant(s, ['list'], { COMPAT_API_SHARED_SECRET: primary });
  t.equal(list.code, 0, list.stderr);
  t.match(list.stdout, /^ID\s+SOURCE\s+API SECRET\s+APP ID\s+APP SECRET\s+AUTH GUEST\n/, 'a table');
  t.match(list.stdout, /primary\s+env file\s+\*\*\*/, 'the primary tenant, from the environment, masked');
  t.match(list.stdout, /school\s+tenants file\s+-\s+school-app\s+\*\*\*/, 'which credentials each tenant has');
  assertNoSecret(t, s, list.stdout + list.stderr, 'list');
  const json = await tenant(s, ['list', '--json'], { COMPAT_API_SHARED_SECRET: primary });
  t.same(
    JSON.parse(json.stdout),
    [
      {
        id: 'primary',
        source: 'env',
        api_secret: '***',
        app_id: null,
        app_secret: null,
        authenticated_guest: 'inherited',
      },
      {
        id: 'moodle',
        source: 'file',
        api_secret: '***',
        app_id: null,
        app_secret: null,
        authenticated_guest: 'inherited',
      },
      {
        id: 'school',
        source: 'file',
        api_secret: null,
        app_id: 'school-app',
        app_secret: '***',
        authenticated_guest: null,
      },
      {
        id: 'acme',
        source: 'file',
        api_secret: '***',
        app_id: null,
        app_secret: null,
        authenticated_guest: 'inherited',
      },
      {
        id: 'portal.v2',
        source: 'file',
        api_secret: null,
        app_id: portal.app_id,
        app_secret: '***',
        authenticated_guest: null,
      },
    ],
    'list --json: masked',
  );
  assertNoSecret(t, s, json.stdout + json.stderr, 'list --json');

  for (const args of [
    ['show', 'school'],
    ['show', 'school', '--json'],
    ['show', 'primary'],
  ]) {
    const shown = await tenant(s, args, { COMPAT_API_SHARED_SECRET: primary });
    t.equal(shown.code, 0, `${args.join(' ')}: ${shown.stderr}`);
    t.match(shown.stdout, /\*\*\*/, `${args.join(' ')}: masked`);
    assertNoSecret(t, s, shown.stdout + shown.stderr, args.join(' '));
  }
  const revealed = await tenant(s, ['show', 'school', '--reveal', '--json']);
  t.same(
    JSON.parse(revealed.stdout),
    {
      id: 'school',
      source: 'file',
      api_secret: null,
      app_id: 'school-app',
      app_secret: schoolAppSecret,
      authenticated_guest: null,
    },
    'show --reveal prints the secret',
  );
  const missing = await tenant(s, ['show', 'nobody']);
  t.equal(missing.code, 1, 'show of an unknown tenant: refused');

  const beforeRotate = readFileSync(s.file, 'utf8');
  // --grace 0: no previous secret is kept (tenant-grace.test.ts covers the grace).
  const rotated = await tenant(s, ['rotate', 'moodle', '--grace', '0']);
  t.equal(rotated.code, 0, rotated.stderr);
  const newMoodle = generated(rotated.stdout).api_secret!;
  t.match(newMoodle, /^[A-Za-z0-9_-]{43}$/, 'the new secret, printed once');
  t.equal(
    readFileSync(s.file, 'utf8'),
    beforeRotate.replace(moodleSecret, newMoodle),
    'only the value changed; its comment stays',
  );
  assertNoSecret(t, s, rotated.stderr, 'rotate stderr');
  s.secrets.add(newMoodle);
  assertMode(t, s.file, 'after rotate');
  const appOnly = await tenant(s, ['rotate', 'school', '--app', '--grace', '0']);
  t.same(
    Object.keys(generated(appOnly.stdout)),
    ['app_secret'],
    'rotate --app: the app secret only (the app id stays)',
  );
  t.equal((await tenant(s, ['rotate', 'school', '--api'])).code, 1, 'rotate --api of a tenant without one: refused');
  t.equal((await tenant(s, ['rotate', 'primary'])).code, 1, "the primary tenant is the env file's, not rotated here");

  const beforeRemove = readFileSync(s.file, 'utf8');
  const removed = await tenant(s, ['remove', 'school']);
  t.equal(removed.code, 0, removed.stderr);
  t.equal(
    readFileSync(s.file, 'utf8'),
    beforeRemove.replace(/\[tenants\.school\]\napp_id = "school-app"\napp_secret = "[^"]+"\n\n/, ''),
    'exactly that block; the comment above it stays',
  );
  assertMode(t, s.file, 'after remove');
  t.equal((await tenant(s, ['remove', 'school'])).code, 1, 'removing it again: refused');
  t.equal((await tenant(s, ['remove', 'primary'])).code, 1, 'the primary tenant cannot be removed here');
});

t.test('duplicates are refused, the primary tenant included; the file is untouched', async (t) => {
  const s = setup(t);
  writeFileSync(
    join(s.dir, 'meet.env'),
    `# installer\nCOMPAT_API_SHARED_SECRET=${primary}\nCOMPAT_JITSI_APP_ID=main-app\n`,
  );
  const cases: [string[], Record<string, string>, RegExp, string][] = [
    [['add', 'moodle'], {}, /tenant moodle already exists/, 'an existing id'],
    [['add', 'x', '--api-secret', moodleSecret], {}, /already used by tenant moodle/, "another tenant's api secret"],
    [
      ['add', 'x', '--api-secret', schoolAppSecret],
      {},
      /already used by tenant school \(app_secret\)/,
      "another tenant's app secret as api secret",
    ],
    [
      ['add', 'x', '--api-secret', primary],
      {},
      /already used by the primary tenant/,
      'the primary secret (from the env file)',
    ],
    [
      ['add', 'x', '--app-id', 'school-app', '--generate-app'],
      {},
      /app id "school-app" is already used by tenant school/,
      "another tenant's app id",
    ],
    [
      ['add', 'x', '--app-id', 'main-app', '--app-secret', 'fresh-app-secret-zzzzzzzzzzzzzzzzzzzzzz'],
      {},
      /already used by the primary tenant \(app_id\)/,
      'the primary app id (env file)',
    ],
    [
      ['add', 'x', '--api-secret', 'env-primary-eeeeeeeeeeeeeeeeeeeeeeeeeeee'],
      { COMPAT_API_SHARED_SECRET: 'env-primary-eeeeeeeeeeeeeeeeeeeeeeeeeeee' },
      /already used by the primary tenant/,
      'the primary secret (from the environment)',
    ],
    [
      [
        'add',
        'x',
        '--api-secret',
        'same-secret-qqqqqqqqqqqqqqqqqqqqqqqqqq',
        '--app-id',
        'a',
        '--app-secret',
        'same-secret-qqqqqqqqqqqqqqqqqqqqqqqqqq',
      ],
      {},
      /must differ/,
      'one value for both secrets',
    ],
  ];
  s.secrets.add('env-primary-eeeeeeeeeeeeeeeeeeeeeeeeeeee');
  for (const [args, env, message, what] of cases) {
    const result = await tenant(s, args, env);
    t.equal(result.code, 1, `${what}: exit 1`);
    t.match(result.stderr, message, `${what}: ${result.stderr.split('\n')[0]}`);
    t.equal(result.stdout, '', `${what}: nothing on stdout`);
    assertNoSecret(t, s, result.stderr, what);
    t.equal(readFileSync(s.file, 'utf8'), sample, `${what}: the file is untouched`);
  }
});

t.test("issue 28 point 10: a tenant cannot take another tenant's gateway path (/{id}/videoconf/)", async (t) => {
  const s = setup(t);
  writeFileSync(join(s.dir, 'meet.env'), `COMPAT_API_SHARED_SECRET=${primary}\nCOMPAT_JITSI_APP_ID=main-app\n`);
  const cases: [string[], RegExp, string][] = [
    [
      ['add', 'x', '--app-id', 'moodle', '--generate-app'],
      /app_id "moodle" is the id of tenant moodle/,
      "an app id that is another tenant's id",
    ],
    [
      ['add', 'school-app'],
      /tenants\.school\.app_id "school-app" is the id of tenant school-app/,
      "an id that is another tenant's app id",
    ],
    [
      ['add', 'main-app'],
      /tenant id main-app is the primary app id \(COMPAT_JITSI_APP_ID\)/,
      'an id that is the primary app id',
    ],
  ];
  for (const [args, message, what] of cases) {
    const result = await tenant(s, args);
    t.equal(result.code, 1, `${what}: exit 1 (refused)`);
    t.match(result.stderr, message, `${what}: ${result.stderr.split('\n')[0]}`);
    t.equal(result.stdout, '', `${what}: nothing generated, nothing printed`);
    t.equal(readFileSync(s.file, 'utf8'), sample, `${what}: the file is untouched`);
  }
  const own = await tenant(s, ['add', 'self', '--app-id', 'self', '--generate-app']);
  t.equal(own.code, 0, `an app id equal to its own tenant id names that tenant only: ${own.stderr}`);
});

t.test('a credential spelled "generate" is the value given, not a request to generate one', async (t) => {
  const s = setup(t);
  writeFileSync(s.file, sample, { mode: 0o600 });
  const appSecret = 'literal-app-secret-kkkkkkkkkkkkkkkkkkkkkk';
  // As a secret, "generate" is a value of 8 bytes, refused under the floor rather than generated.
  const asSecret = await tenant(s, ['add', 'literal', '--api-secret', 'generate']);
  t.equal(asSecret.code, 64, 'the 8-byte secret "generate" is refused, not generated');
  t.match(asSecret.stderr, /--api-secret holds 8 bytes/);
  const added = await tenant(s, ['add', 'literal', '--app-id', 'generate', '--app-secret', appSecret]);
  t.equal(added.code, 0, added.stderr);
  t.equal(added.stdout, '', 'nothing generated, so nothing printed');
  const block = readFileSync(s.file, 'utf8').slice(sample.length);
  t.equal(block, `\n[tenants.literal]\napp_id = "generate"\napp_secret = "${appSecret}"\n`, 'the values as given');
});

t.test('a hand-broken file is reported with line and column and never made worse', async (t) => {
  const broken = `${sample}[tenants.oops]\napi_secret = "never-closed-${'w'.repeat(30)}\n`;
  const s = setup(t, broken);
  s.secrets.add(`never-closed-${'w'.repeat(30)}`);
  const line = broken.split('\n').findIndex((l) => l.startsWith('api_secret = "never')) + 1;
  for (const args of [['add', 'new'], ['rotate', 'moodle'], ['remove', 'moodle'], ['list'], ['show', 'moodle']]) {
    const result = await tenant(s, args);
    t.equal(result.code, 2, `${args[0]}: exit 2`);
    t.match(
      result.stderr,
      new RegExp(`tenants\\.toml:${line}:\\d+ is not valid: malformed TOML at line ${line}, column \\d+`),
      `${args[0]}: names file, line and column`,
    );
    assertNoSecret(t, s, result.stdout + result.stderr, `${args[0]} on a broken file`);
    t.equal(readFileSync(s.file, 'utf8'), broken, `${args[0]}: the file is untouched`);
  }
  writeFileSync(s.file, '[tenants]\nacme = { api_secret = "inline-secret-iiiiiiiiiiiiiiiiiiiiiiiiii" }\n');
  const inline = await tenant(s, ['rotate', 'acme']);
  t.equal(inline.code, 1, 'a tenant meetctl cannot edit safely: refused');
  t.match(inline.stderr, /not written as one \[tenants\.acme\] table/);
});

t.test('abuse: ids, values, the file itself', async (t) => {
  const s = setup(t);
  for (const id of ['a]b', 'a.b]\n[x', 'a\nb', 'ünïcode', 'x'.repeat(65), '-dash', 'primary']) {
    const result = await tenant(s, ['add', id, '--generate']);
    t.ok(
      result.code === 64 || result.code === 1,
      `id ${JSON.stringify(id)}: refused (${result.code}) ${result.stderr.split('\n')[0]}`,
    );
  }
  t.equal((await tenant(s, ['add', 'x'.repeat(64)])).code, 0, 'a 64-character id is fine');
  const quoteSecret = 'quote"secret-uuuuuuuuuuuuuuuuuuuuuuuuuuu';
  for (const [secret, message] of [
    [quoteSecret, /--api-secret must not contain double quotes/],
    ['line1-vvvvvvvvvvvvvvvvvvvv\nline2-vvvvvvvvvvvvvvvvvvvvvv', /--api-secret must not contain control characters/],
    ['bell-\u0007-yyyyyyyyyyyyyyyyyyyyyyyyyyyyyy', /--api-secret must not contain control characters/],
    ['back\\slash-yyyyyyyyyyyyyyyyyyyyyyyyyyyyyy', /backslashes/],
  ] as const) {
    s.secrets.add(secret);
    const result = await tenant(s, ['add', 'odd', '--api-secret', secret]);
    t.equal(result.code, 64, `secret ${JSON.stringify(secret.slice(0, 6))}…: usage error`);
    t.match(result.stderr, message, 'naming the flag');
    assertNoSecret(t, s, result.stderr, 'the refusal');
  }
  const before = readFileSync(s.file, 'utf8');
  t.equal((await tenant(s, ['add', 'y', '--api-secret', 'a', '--generate'])).code, 64, 'two sources of one secret');
  t.equal((await tenant(s, ['add', 'y', '--app-id', 'only-id'])).code, 64, 'an app id without its secret');
  t.equal(readFileSync(s.file, 'utf8'), before, 'nothing written by refused input');

  const secretFile = join(s.dir, 'api.secret');
  writeFileSync(secretFile, 'from-file-secret-ffffffffffffffffffffff\n');
  const fromFile = await tenant(s, ['add', 'filed', '--api-secret-file', secretFile]);
  t.equal(fromFile.code, 0, fromFile.stderr);
  t.equal(fromFile.stdout, '', 'a given secret is not echoed');
  t.equal(
    parseRegistry(readFileSync(s.file, 'utf8'), null).byId.get('filed')?.apiSecret,
    'from-file-secret-ffffffffffffffffffffff',
    '--api-secret-file: its final newline dropped',
  );
  const piped = await new Promise<CliResult>((resolve) => {
    const child = execFile(
      process.execPath,
      [meetctl, 'tenant', 'add', 'piped', '--app-id', 'piped-app', '--app-secret-file', '-'],
      { env: { PATH: process.env.PATH ?? '', ...s.env } },
      (error, stdout, stderr) =>
        resolve({ code: error ? (typeof error.code === 'number' ? error.code : null) : 0, stdout, stderr }),
    );
    child.stdin!.end('piped-app-secret-gggggggggggggggggggggg\n');
  });
  t.equal(piped.code, 0, `--app-secret-file - reads standard input: ${piped.stderr}`);
  t.equal(
    parseRegistry(readFileSync(s.file, 'utf8'), null).byId.get('piped')?.appSecret,
    'piped-app-secret-gggggggggggggggggggggg',
  );
  const short = await tenant(s, ['add', 'short', '--api-secret', 'short-secret']);
  t.equal(short.code, 64, "a short given secret is refused (doctor's floor, issue 29 point 18)");
  t.match(short.stderr, /--api-secret holds 12 bytes; a secret needs at least 32/, 'naming the flag');

  const real = join(s.dir, 'real.toml');
  writeFileSync(real, sample, { mode: 0o600 });
  const link = join(s.dir, 'link.toml');
  symlinkSync(real, link);
  const viaLink = await tenant(s, ['add', 'z'], { SERVICE_TENANTS_FILE: link });
  t.equal(viaLink.code, 2, 'a symlinked tenants file: refused');
  t.match(viaLink.stderr, /is a symbolic link/);
  t.ok(
    lstatSync(link).isSymbolicLink() && readFileSync(real, 'utf8') === sample,
    'the link and its target are untouched',
  );
  const asDir = join(s.dir, 'dir.toml');
  mkdirSync(asDir);
  const viaDir = await tenant(s, ['list'], { SERVICE_TENANTS_FILE: asDir });
  t.equal(viaDir.code, 2, 'a directory: refused');
  t.match(viaDir.stderr, /is a directory/);
  const noDir = await tenant(s, ['add', 'z'], { SERVICE_TENANTS_FILE: join(s.dir, 'missing', 'tenants.toml') });
  t.equal(noDir.code, 69, 'a missing directory: environment error');
  t.match(noDir.stderr, /directory .*missing of the tenants file does not exist/);
});

t.test(
  "the file keeps its owner when root rewrites it, and takes the env file's when new",
  { skip: process.getuid?.() !== 0 ? 'needs root' : false },
  async (t) => {
    const s = setup(t);
    chownSync(s.file, 4321, 4322);
    t.equal((await tenant(s, ['add', 'owned'])).code, 0);
    t.same([statSync(s.file).uid, statSync(s.file).gid], [4321, 4322], 'the service user still owns it');
    const fresh = setup(t, null);
    writeFileSync(join(fresh.dir, 'meet.env'), '# installer\n', { mode: 0o600 });
    chownSync(join(fresh.dir, 'meet.env'), 4331, 4332);
    t.equal((await tenant(fresh, ['add', 'first'])).code, 0);
    t.same(
      [statSync(fresh.file).uid, statSync(fresh.file).gid],
      [4331, 4332],
      "a new file belongs to the env file's owner",
    );
    assertMode(t, fresh.file, 'a new file');
  },
);

t.test('a file of 10,000 tenants: add, list, rotate and remove still work (no timing asserted)', async (t) => {
  const blocks: string[] = ['# a large instance'];
  for (let i = 0; i < 10_000; i++) blocks.push(`[tenants.t${i}]\napi_secret = "T${i}-${'k'.repeat(40)}"\n`);
  const big = blocks.join('\n');
  const s = setup(t, big);
  const started = Date.now();
  const added = await tenant(s, ['add', 'newcomer']);
  t.equal(added.code, 0, added.stderr);
  t.ok(readFileSync(s.file, 'utf8').startsWith(big), 'the 10,000 tenants are kept byte for byte');
  const list = await tenant(s, ['list', '--json']);
  t.equal(JSON.parse(list.stdout).length, 10_001, 'list sees all of them');
  t.equal((await tenant(s, ['rotate', 't5000'])).code, 0, 'rotate one in the middle');
  t.equal((await tenant(s, ['remove', 't0'])).code, 0, 'remove the first');
  t.equal(parseRegistry(readFileSync(s.file, 'utf8'), null).tenants.length, 10_000);
  t.comment(`add + list + rotate + remove on 10,000 tenants: ${Date.now() - started} ms`);
});
