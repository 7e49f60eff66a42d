import t from 'tap';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfig, maskedConfig } from '../../../src/config/load.js';
import { ConfigError } from '../../../src/config/config-error.js';
import { moderatorLinkTtlBounds } from '../../../src/engine/rooms/room-fields.js';

function file(_t: unknown, text: string): string {
  const path = join(mkdtempSync(join(tmpdir(), 'meet-config-')), 'defaults.toml');
  writeFileSync(path, text);
  return path;
}

t.test('precedence: default < file < environment < flag', async (t) => {
  const configFile = file(
    t,
    '[service]\nwaiting_room = "forced"\nhttp_addr = "127.0.0.1:4000"\ndata_dir = "/from/file"\n',
  );
  const none = loadConfig({ configFile: file(t, '') });
  t.equal(none.waitingRoom, 'optional', 'built-in default');
  t.same(none.httpAddr, { host: '0.0.0.0', port: 3000 });
  t.equal(none.waitingClosedWindowSecs, 60, 'a silent waiting page keeps its place for a grace of 60 s by default');
  t.equal(none.dataDir, './data');

  const fromFile = loadConfig({ configFile });
  t.equal(fromFile.waitingRoom, 'forced', 'file beats default');
  t.same(fromFile.httpAddr, { host: '127.0.0.1', port: 4000 });

  const fromEnv = loadConfig({ configFile, env: { SERVICE_WAITING_ROOM: 'off', SERVICE_DATA_DIR: '/from/env' } });
  t.equal(fromEnv.waitingRoom, 'off', 'environment beats file');
  t.equal(fromEnv.dataDir, '/from/env');
  t.equal(fromEnv.compatApiDataDir, '/from/env/compat-api', 'derived default follows the data directory');

  const fromFlag = loadConfig({ configFile, env: { SERVICE_WAITING_ROOM: 'off' }, flags: { waitingRoom: 'optional' } });
  t.equal(fromFlag.waitingRoom, 'optional', 'flag beats environment');
});

t.test('SERVICE_MODERATOR_LINK_TTL_SECS: 120 days unless set, the bounds of the room field', async (t) => {
  t.equal(loadConfig({ configFile: file(t, '') }).moderatorLinkTtlSecs, moderatorLinkTtlBounds.fallback);
  t.equal(moderatorLinkTtlBounds.fallback, 120 * 86_400, 'a school term');
  const env = (value: number) => ({ configFile: file(t, ''), env: { SERVICE_MODERATOR_LINK_TTL_SECS: String(value) } });
  t.equal(loadConfig(env(moderatorLinkTtlBounds.min)).moderatorLinkTtlSecs, moderatorLinkTtlBounds.min, 'the least');
  t.equal(loadConfig(env(moderatorLinkTtlBounds.max)).moderatorLinkTtlSecs, moderatorLinkTtlBounds.max, 'the most');
  t.throws(() => loadConfig(env(moderatorLinkTtlBounds.min - 1)), ConfigError, 'below the room field is refused');
  t.throws(() => loadConfig(env(moderatorLinkTtlBounds.max + 1)), ConfigError, 'above it too');
  const fromFile = loadConfig({ configFile: file(t, '[service]\nmoderator_link_ttl_secs = 7776000\n') });
  t.equal(fromFile.moderatorLinkTtlSecs, 90 * 86_400, 'room-defaults.toml sets it');
});

t.test('the config is frozen, lists included', async (t) => {
  const config = loadConfig({ configFile: file(t, ''), env: { COMPAT_JITSI_ACCEPTED_AUDIENCES: 'a,b' } });
  t.ok(Object.isFrozen(config));
  t.ok(Object.isFrozen(config.jitsiAcceptedAudiences));
  t.throws(() => ((config as { waitingRoom: string }).waitingRoom = 'off'));
});

t.test('issuers default to the app id', async (t) => {
  const config = loadConfig({ configFile: file(t, ''), env: { COMPAT_JITSI_APP_ID: 'my-app' } });
  t.same(config.jitsiAcceptedIssuers, ['my-app']);
  t.same(config.jitsiAcceptedAudiences, ['jitsi']);
});

const invalid: [string, string, RegExp][] = [
  [
    'SERVICE_WAITING_ROOM',
    'sometimes',
    /^SERVICE_WAITING_ROOM must be one of optional, forced, off \(got "sometimes"\)/m,
  ],
  ['SERVICE_WAITING_ROOM_MODE', 'vote', /^SERVICE_WAITING_ROOM_MODE must be one of approval, until_moderator/m],
  ['SERVICE_HTTP_ADDR', 'localhost', /^SERVICE_HTTP_ADDR must be host:port/m],
  ['SERVICE_HTTP_ADDR', '0.0.0.0:70000', /^SERVICE_HTTP_ADDR must be host:port/m],
  ['SERVICE_LOG_LEVEL', 'loud', /^SERVICE_LOG_LEVEL must be one of/m],
  ['SERVICE_EMBED_ANCESTORS', 'javascript:alert(1)', /^SERVICE_EMBED_ANCESTORS must list origins/m],
  ['COMPAT_HTTP_ADDR', ':8088', /^COMPAT_HTTP_ADDR must be host:port/m],
  ['COMPAT_FRONTEND_URL', 'ftp://x', /^COMPAT_FRONTEND_URL must be an http/m],
  ['COMPAT_API_SHARED_SECRET', '', /^COMPAT_API_SHARED_SECRET must not be empty or white space/m],
  ['COMPAT_API_SHARED_SECRET', '   ', /^COMPAT_API_SHARED_SECRET must not be empty or white space/m],
  ['COMPAT_JITSI_APP_SECRET', ' ', /^COMPAT_JITSI_APP_SECRET must not be empty or white space/m],
  [
    'SERVICE_WAITING_CLOSED_WINDOW_SECS',
    '2',
    /^SERVICE_WAITING_CLOSED_WINDOW_SECS must be an integer from 4 to 3600 \(got "2"\)/m,
  ],
  [
    'SERVICE_WAITING_CLOSED_WINDOW_SECS',
    'forever',
    /^SERVICE_WAITING_CLOSED_WINDOW_SECS must be an integer from 4 to 3600/m,
  ],
  [
    'SERVICE_WAITING_CLOSED_WINDOW_SECS',
    '7.5',
    /^SERVICE_WAITING_CLOSED_WINDOW_SECS must be an integer from 4 to 3600/m,
  ],
  [
    'SERVICE_MODERATOR_LINK_TTL_SECS',
    '3599',
    /^SERVICE_MODERATOR_LINK_TTL_SECS must be an integer from 3600 to 31536000 \(got "3599"\)/m,
  ],
  ['SERVICE_MODERATOR_LINK_TTL_SECS', '31536001', /^SERVICE_MODERATOR_LINK_TTL_SECS must be an integer from 3600/m],
  ['SERVICE_MODERATOR_LINK_TTL_SECS', 'a term', /^SERVICE_MODERATOR_LINK_TTL_SECS must be an integer from 3600/m],
  ['SERVICE_MODERATOR_LINK_TTL_SECS', '86400.5', /^SERVICE_MODERATOR_LINK_TTL_SECS must be an integer from 3600/m],
  ['COMPAT_JITSI_ALLOW_ANONYMOUS', 'maybe', /^COMPAT_JITSI_ALLOW_ANONYMOUS must be one of true, false/m],
];

for (const [variable, value, expected] of invalid) {
  t.test(`${variable}=${JSON.stringify(value)} is refused, naming the variable`, async (t) => {
    const err = t.throws(() => loadConfig({ configFile: file(t, ''), env: { [variable]: value } })) as Error;
    t.type(err, ConfigError);
    t.match(err.message, expected);
    t.equal((err as ConfigError).exitCode, 2);
  });
}

t.test('a secret never shows in an error message', async (t) => {
  const err = t.throws(() =>
    loadConfig({ configFile: file(t, ''), env: { COMPAT_API_SHARED_SECRET: ' hunter2-secret ' } }),
  ) as Error;
  t.notMatch(err.message, /hunter2/);
});

t.test('every problem is reported at once', async (t) => {
  const err = t.throws(() =>
    loadConfig({ configFile: file(t, ''), env: { SERVICE_WAITING_ROOM: 'x', COMPAT_HTTP_ADDR: 'y' } }),
  ) as Error;
  t.match(err.message, /SERVICE_WAITING_ROOM/);
  t.match(err.message, /COMPAT_HTTP_ADDR/);
});

t.test('a bad value in the file names the variable and where it came from', async (t) => {
  const configFile = file(t, '[service]\nwaiting_room = "maybe"\n');
  t.throws(() => loadConfig({ configFile }), {
    message:
      /SERVICE_WAITING_ROOM must be one of optional, forced, off \(got "maybe"\) \[from .*service\.waiting_room\]/,
  });
});

t.test('a malformed defaults file names the line and column', async (t) => {
  const configFile = file(t, '[service]\nwaiting_room = "forced"\nhttp_addr = = 3\n');
  const err = t.throws(() => loadConfig({ configFile })) as Error;
  t.match(err.message, /line 3, column \d+/);
  t.match(err.message, /defaults\.toml:3:\d+/);
});

t.test('an unknown key in the file is refused', async (t) => {
  t.throws(() => loadConfig({ configFile: file(t, '[service]\nwaiting_rom = "forced"\n') }), {
    message: /unknown key service\.waiting_rom/,
  });
});

t.test('a named defaults file that does not exist is an error', async (t) => {
  t.throws(() => loadConfig({ configFile: '/nonexistent/meet.toml' }), {
    message: /cannot read \/nonexistent\/meet\.toml: ENOENT/,
  });
});

t.test('the packaged room-defaults.toml loads and holds only defaults', async (t) => {
  const config = loadConfig({});
  t.equal(config.waitingRoom, 'optional');
  t.same(config.httpAddr, { host: '0.0.0.0', port: 3000 });
});

t.test('masked config hides secrets that are set', async (t) => {
  const config = loadConfig({ configFile: file(t, ''), env: { COMPAT_API_SHARED_SECRET: 'very-secret-value' } });
  const masked = maskedConfig(config);
  t.equal(masked.COMPAT_API_SHARED_SECRET, '***');
  t.equal(masked.COMPAT_JITSI_APP_SECRET, null);
  t.notMatch(JSON.stringify(masked), /very-secret-value/);
});
