// Issue 5 point 3: the tenant registry: parsing, isolation between tenants, hot reload
// (a tenant added or removed while the daemon runs), a bad file keeping the last good one,
// and a tenant secret failing when SERVICE_TENANTS_FILE is unset.
import { mkdtempSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import type { Tap } from '../../helpers/api.js';
import { parseRegistry, RegistryError } from '../../../src/compat/tenants/parse.js';
import type * as ConfigErrors from '../../../src/config/config-error.js';
import { assertFailed, assertSuccess, ConfapiClient, logMatch } from '../../helpers/compat.js';
import { builtModule, compatAppFor } from '../../helpers/compat-app.js';

const primary = 'primary-secret-aaaaaaaaaaaa';
const secretA = 'tenant-a-secret-bbbbbbbbbbbb';
const secretB = 'tenant-b-secret-cccccccccccc';
const secretC = 'tenant-c-secret-dddddddddddd';

function registryText(tenants: Record<string, string>): string {
  return Object.entries(tenants)
    .map(([id, secret]) => `[tenants.${id}]\napi_secret = "${secret}"\n`)
    .join('\n');
}

/** Replaces the file atomically, the way `meetctl tenant` will: a temp file in the same directory, renamed over it. */
function replaceFile(file: string, text: string): void {
  const temp = `${file}.${process.pid}.tmp`;
  writeFileSync(temp, text);
  renameSync(temp, file);
}

async function eventually(t: Tap, what: string, check: () => Promise<boolean>, withinMs: number): Promise<number> {
  const started = Date.now();
  while (Date.now() - started < withinMs) {
    if (await check()) {
      t.pass(`${what} within ${Date.now() - started} ms`);
      return Date.now() - started;
    }
    await new Promise((r) => setTimeout(r, 50));
  }
  t.fail(`${what} within ${withinMs} ms`);
  return withinMs;
}

/**
 * What building the module (as the daemon starts it) throws when its tenants file holds `text`;
 * licensed, so the module starts and reads the registry (an unlicensed one would not get that
 * far). A ConfigError is what `meetctl serve` exits 2 with (start-refused.test.ts runs that process).
 */
async function startWithTenantsFile(t: Tap, text: string): Promise<{ configError: boolean; message: string }> {
  const dir = mkdtempSync(join(tmpdir(), 'meet-tenants-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const file = join(dir, 'tenants.toml');
  writeFileSync(file, text);
  const { ConfigError } = await builtModule<typeof ConfigErrors>('config/config-error.js');
  const err: unknown = await compatAppFor(t, {
    env: { COMPAT_API_SHARED_SECRET: primary, SERVICE_TENANTS_FILE: file },
  }).then(
    () => null,
    (e: unknown) => e,
  );
  return { configError: err instanceof ConfigError, message: err instanceof Error ? err.message : String(err) };
}

t.test('unit: the registry format', async (t) => {
  // An app secret holds 32 bytes or more (HS256); api secrets keep their own rules.
  const snap = parseRegistry(
    `[tenants.a]\napi_secret = "sa"\n[tenants.b]\napp_id = "app"\napp_secret = "app-secret-of-tenant-b-0123456789ab"\n`,
    'p',
  );
  t.same(
    snap.tenants.map((x) => x.id),
    ['primary', 'a', 'b'],
    'the primary tenant first',
  );
  t.same(
    snap.apiTenants.map((x) => x.id),
    ['primary', 'a'],
    'only tenants with an api_secret check checksums',
  );
  t.equal(snap.byId.get('b')?.appId, 'app', 'gateway pairs are kept for the embed gateway');
  const refuse = (text: string, pattern: RegExp, what: string) =>
    t.throws(() => parseRegistry(text, 'p'), pattern, what);
  refuse(
    '[tenants.a]\napi_secret = "same"\n[tenants.b]\napi_secret = "same"\n',
    /same api_secret/,
    'two tenants with the same secret',
  );
  refuse('[tenants.a]\napi_secret = "p"\n', /same api_secret/, 'a tenant with the primary secret');
  refuse('[tenants.a]\napi_secret = "  "\n', /non-empty/, 'a blank secret');
  refuse('[tenants.a]\napi_secret = "x"\ncolour = "red"\n', /unknown key colour/, 'an unknown key');
  refuse('[tenants.primary]\napi_secret = "x"\n', /reserved/, 'the reserved id');
  refuse('[tenants."a b"]\napi_secret = "x"\n', /tenant id/, 'a bad id');
  refuse('[tenants.a]\napp_id = "x"\n', /go together/, 'app_id without app_secret');
  t.equal(snap.byAppId.get('app')?.id, 'b', 'a gateway pair is found by its app id');
  refuse(
    '[tenants.short]\napp_id = "x"\napp_secret = "only-31-bytes-long-xxxxxxxxxxxx"\n',
    /tenants\.short\.app_secret must hold at least 32 bytes/,
    'a short app secret, naming the tenant',
  );
  t.equal(
    parseRegistry('[tenants.ok]\napp_id = "x"\napp_secret = "exactly-32-bytes-long-xxxxxxxxxx"\n', null).byId.get('ok')
      ?.appSecret?.length,
    32,
    '32 bytes are enough',
  );
  t.same(
    parseRegistry(
      '[tenants.e]\napp_id = "x"\napp_secret = "exactly-32-bytes-long-xxxxxxxxxx"\nembed_origins = ["https://app.example.org", "http://127.0.0.1:8080"]\n',
      null,
    ).byId.get('e')?.embedOrigins,
    ['https://app.example.org', 'http://127.0.0.1:8080'],
    'embed_origins kept',
  );
  for (const [value, what] of [
    ['"https://a.example"', 'a string'],
    ['[]', 'an empty list'],
    ['["https://a.example/path"]', 'a path'],
    ['["https://a.example; script-src *"]', 'a directive'],
    ['["*"]', 'a star'],
    ['[1]', 'a number'],
  ]) {
    refuse(
      `[tenants.e]\napp_id = "x"\napp_secret = "exactly-32-bytes-long-xxxxxxxxxx"\nembed_origins = ${value}\n`,
      /tenants\.e\.embed_origins must/,
      `embed_origins: ${what}`,
    );
  }
  refuse(
    '[tenants.e]\napi_secret = "x"\nembed_origins = ["https://a.example"]\n',
    /embed_origins needs app_id/,
    'embed_origins without a gateway pair',
  );
  t.throws(
    () =>
      parseRegistry('[tenants.e]\napp_id = "main"\napp_secret = "exactly-32-bytes-long-xxxxxxxxxx"\n', null, 'main'),
    /same app_id/,
    'the primary app id is taken',
  );
  // Issue 28 point 10: a gateway path prefix is an app id or a tenant id; one must not be the other's.
  const pair = (id: string, appId: string) =>
    `[tenants.${id}]\napp_id = "${appId}"\napp_secret = "exactly-32-bytes-long-${id.padEnd(10, 'x')}"\n`;
  refuse(
    pair('a', 'a-app') + pair('b', 'a'),
    /tenants\.b\.app_id "a" is the id of tenant a/,
    "an app id that is an earlier tenant's id",
  );
  refuse(
    pair('b', 'a') + pair('a', 'a-app'),
    /tenants\.b\.app_id "a" is the id of tenant a/,
    "an app id that is a later tenant's id",
  );
  refuse(
    pair('b', 'a') + '[tenants.a]\napi_secret = "sa"\n',
    /tenants\.b\.app_id "a" is the id of tenant a/,
    'a meeting-API tenant too',
  );
  t.throws(
    () => parseRegistry(pair('main', 'm'), null, 'main'),
    /tenant id main is the primary app id/,
    'a tenant id that is the primary app id',
  );
  t.equal(
    parseRegistry(pair('self', 'self'), null).byAppId.get('self')?.id,
    'self',
    'an app id equal to its own tenant id is allowed',
  );
  refuse('[tenants.a]\n', /neither/, 'a tenant with no key');
  refuse('[other]\n', /unknown key other/, 'an unknown table');
  try {
    parseRegistry('[tenants.a]\napi_secret = "x\n', 'p');
    t.fail('malformed TOML must throw');
  } catch (err) {
    t.ok(err instanceof RegistryError);
    t.equal((err as RegistryError).line, 2, 'the line of the error');
    t.type((err as RegistryError).column, 'number', 'and its column');
  }
});

t.test('two tenants and the primary one on a daemon, reloaded while it runs', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'meet-tenants-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const file = join(dir, 'tenants.toml');
  writeFileSync(file, registryText({ a: secretA, b: secretB }));
  const d = await compatAppFor(t, { env: { COMPAT_API_SHARED_SECRET: primary, SERVICE_TENANTS_FILE: file } });
  const p = new ConfapiClient(d.compatUrl, primary);
  const a = new ConfapiClient(d.compatUrl, secretA, 'sha256', 'sorted');
  const b = new ConfapiClient(d.compatUrl, secretB, 'sha512', 'percent');
  const c = new ConfapiClient(d.compatUrl, secretC);

  t.test('each key sees and drives only its own meetings', async (t) => {
    assertSuccess(
      t,
      await a.get('create', [
        ['meetingID', 'shared-id'],
        ['name', 'A room'],
        ['moderatorPW', 'amp'],
      ]),
      'a creates shared-id',
    );
    assertSuccess(t, await a.get('create', [['meetingID', 'only-a']]), 'a creates only-a');
    const listB = await b.get('getMeetings');
    assertSuccess(t, listB, 'b lists');
    t.equal(listB.xml.messageKey, 'noMeetings', "b sees none of a's meetings");
    assertFailed(
      t,
      await b.get('getMeetingInfo', [['meetingID', 'only-a']]),
      'notFound',
      "b: getMeetingInfo of a's meeting",
    );
    t.equal(
      (await b.get('isMeetingRunning', [['meetingID', 'only-a']])).xml.running,
      'false',
      'b: isMeetingRunning false',
    );
    assertFailed(t, await b.get('end', [['meetingID', 'only-a']]), 'notFound', "b cannot end a's meeting");
    assertFailed(
      t,
      await b.get('join', [
        ['meetingID', 'only-a'],
        ['fullName', 'Spy'],
        ['role', 'MODERATOR'],
      ]),
      'invalidMeetingIdentifier',
      "b cannot join a's meeting",
    );
    assertFailed(
      t,
      await b.get('sendChatMessage', [
        ['meetingID', 'only-a'],
        ['message', 'hi'],
      ]),
      'notFound',
      "b cannot post in a's meeting",
    );
    assertFailed(
      t,
      await p.get('getMeetingInfo', [['meetingID', 'only-a']]),
      'notFound',
      "the primary key does not see a's either",
    );
    const created = await b.get('create', [
      ['meetingID', 'shared-id'],
      ['name', 'B room'],
    ]);
    assertSuccess(t, created, 'b creates the same meetingID');
    t.equal(created.xml.messageKey, '', "a new meeting of its own, not a duplicate of a's");
    const joinA = await a.get('join', [
      ['meetingID', 'shared-id'],
      ['fullName', 'X'],
      ['role', 'VIEWER'],
      ['redirect', 'false'],
    ]);
    const joinB = await b.get('join', [
      ['meetingID', 'shared-id'],
      ['fullName', 'X'],
      ['role', 'VIEWER'],
      ['redirect', 'false'],
    ]);
    t.not(new URL(joinA.xml.url).pathname, new URL(joinB.xml.url).pathname, 'different rooms');
    const listA = await a.get('getMeetings');
    const ids = [listA.xml.meetings.meeting]
      .flat()
      .map((m: { meetingID: string }) => m.meetingID)
      .sort();
    t.same(ids, ['only-a', 'shared-id'], 'a lists exactly its own');
    t.equal(
      (await a.get('getMeetingInfo', [['meetingID', 'shared-id']])).xml.meetingName,
      'A room',
      "a's shared-id is a's",
    );
    t.equal(
      (await b.get('getMeetingInfo', [['meetingID', 'shared-id']])).xml.meetingName,
      'B room',
      "b's shared-id is b's",
    );
    assertSuccess(
      t,
      await b.get('end', [
        ['meetingID', 'shared-id'],
        ['password', created.xml.moderatorPW],
      ]),
      'b ends its own',
    );
    t.equal(
      (await a.get('getMeetingInfo', [['meetingID', 'shared-id']])).xml.hasBeenForciblyEnded,
      'false',
      "a's meeting of the same id lives on",
    );
  });

  t.test('a tenant added to the file while running works within 2 s; removed, it stops', async (t) => {
    assertFailed(t, await c.get('getMeetings'), 'checksumError', 'c is not registered yet');
    replaceFile(file, registryText({ a: secretA, b: secretB, c: secretC }));
    await eventually(t, 'c accepted', async () => (await c.get('getMeetings')).xml?.returncode === 'SUCCESS', 2000);
    replaceFile(file, registryText({ a: secretA, c: secretC }));
    await eventually(
      t,
      'b refused after its removal',
      async () => (await b.get('getMeetings')).xml?.messageKey === 'checksumError',
      2000,
    );
    assertSuccess(t, await a.get('getMeetings'), 'a still works');
  });

  t.test('a malformed or ambiguous file keeps the last good registry and logs line and column', async (t) => {
    writeFileSync(file, '[tenants.a]\napi_secret = "unterminated\n');
    const logged = await logMatch(d, /"line":2,"column":\d+[^\n]*tenant registry not reloaded/, 3000);
    t.ok(logged, 'the error names line and column');
    assertSuccess(t, await c.get('getMeetings'), 'c still works with the last good registry');
    replaceFile(file, registryText({ a: secretA, c: secretA }));
    await logMatch(d, /same api_secret/, 3000);
    assertSuccess(t, await c.get('getMeetings'), 'two tenants with one secret: refused, c still works');
    replaceFile(file, registryText({ a: secretA, b: secretB }));
    await eventually(
      t,
      'a good file is taken again',
      async () => (await b.get('getMeetings')).xml?.returncode === 'SUCCESS',
      2000,
    );
  });
});

t.test(
  "issue 28 point 10: an app id that is another tenant's id stops the daemon at start, naming tenant and field",
  async (t) => {
    const started = await startWithTenantsFile(
      t,
      `[tenants.acme]\napi_secret = "${secretA}"\n\n[tenants.rogue]\napp_id = "acme"\napp_secret = "rogue-app-secret-0123456789abcdef"\n`,
    );
    t.ok(started.configError, 'a ConfigError: exit 2');
    t.match(
      started.message,
      /tenants\.rogue\.app_id "acme" is the id of tenant acme/,
      'naming the tenant and its app_id',
    );
  },
);

t.test('without SERVICE_TENANTS_FILE only the primary secret validates', async (t) => {
  const d = await compatAppFor(t, { env: { COMPAT_API_SHARED_SECRET: primary } });
  assertSuccess(t, await new ConfapiClient(d.compatUrl, primary).get('getMeetings'), 'the primary secret');
  assertFailed(
    t,
    await new ConfapiClient(d.compatUrl, secretA).get('getMeetings'),
    'checksumError',
    "a tenant's correct secret",
  );
});

t.test('a broken registry at start stops the daemon with exit code 2', async (t) => {
  const started = await startWithTenantsFile(t, '[tenants.a]\napi_secret = ');
  t.ok(started.configError, 'a ConfigError: exit 2');
  t.match(started.message, /SERVICE_TENANTS_FILE[^\n]*:\d+:\d+: malformed TOML/, 'naming the file, line and column');
});
