// Issue 13 point 3: the text edits behind `meetctl tenant` keep the operator's comments and
// other tenants byte for byte, and every edit is re-parsed with the daemon's parser.
import t from 'tap';
import { parseRegistry, RegistryError } from '../../../src/compat/tenants/parse.js';
import {
  appendTenantText,
  checkEdit,
  fileTenants,
  holderOf,
  removeTenantText,
  setTenantValueText,
  tenantHeader,
  tenantIdProblem,
  TenantRefused,
  valueProblem,
} from '../../../src/ops/tenants-file.js';

const file = '/etc/meet/tenants.toml';
const none = { apiSecret: null, appId: null, appSecret: null };
const primary = {
  apiSecret: 'primary-secret-0000000000000000000',
  appId: 'primary-app',
  appSecret: 'primary-app-secret-00000000000000',
};

const original = [
  '# Tenants of this instance. Keep this file 0600.',
  '',
  '[tenants.moodle]   # the LMS',
  'api_secret = "moodle-secret-aaaaaaaaaaaaaaaaaaaaaa"   # from Moodle\'s settings',
  '',
  '# the school platform, set up by Ana',
  '[tenants.school]',
  "api_secret = 'school-secret-bbbbbbbbbbbbbbbbbbbbbb'",
  'app_id = "school-app"',
  '  # note inside the block',
  'app_secret = "school-app-secret-cccccccccccccccc"',
  '',
  '[tenants."x.y"]',
  'api_secret = """xy-secret',
  '[tenants.fake]',
  'dddddddddddddd"""',
  '',
  '# trailing comment',
  '',
].join('\n');

/** A value as a test name: TAP reads U+2028 and control characters as line breaks. */
const shown = (value: string) =>
  JSON.stringify(value).replace(/[^\x20-\x7e]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
const tenantOf = (
  id: string,
  apiSecret: string | null,
  appId: string | null = null,
  appSecret: string | null = null,
) => ({ id, apiSecret, appId, appSecret });

t.test('the sample parses as the daemon reads it', async (t) => {
  t.same(
    fileTenants(parseRegistry(original, null)).map((x) => x.id),
    ['moodle', 'school', 'x.y'],
    'three tenants; the header inside the multi-line string is data',
  );
});

t.test('append: everything before stays, the block parses', async (t) => {
  const next = tenantOf(
    'acme',
    'acme-secret-eeeeeeeeeeeeeeeeeeeeeeeeee',
    'acme-app',
    'acme-app-secret-ffffffffffffffffff',
  );
  const text = appendTenantText(original, next);
  t.ok(text.startsWith(original), 'the original bytes are a prefix of the new text');
  t.equal(
    text.slice(original.length),
    '\n[tenants.acme]\napi_secret = "acme-secret-eeeeeeeeeeeeeeeeeeeeeeeeee"\napp_id = "acme-app"\napp_secret = "acme-app-secret-ffffffffffffffffff"\n',
  );
  const snap = checkEdit(text, none, [...fileTenants(parseRegistry(original, null)), next], file);
  t.same(snap.byId.get('acme'), next, 'the new tenant reads back');
  t.equal(appendTenantText('', next).split('\n')[0], '[tenants.acme]', 'an empty file starts with the block');
  t.equal(
    appendTenantText('# only a comment', next),
    '# only a comment\n\n' + appendTenantText('', next),
    'a missing final newline is added, then one blank line',
  );
  t.equal(tenantHeader('a.b'), '[tenants."a.b"]', 'a dotted id is quoted (a bare dot would nest tables)');
  const crlf = original.replace(/\n/g, '\r\n');
  const crlfNext = appendTenantText(crlf, next);
  t.ok(crlfNext.startsWith(crlf) && !/[^\r]\n/.test(crlfNext), 'a CRLF file gets CRLF lines');
});

t.test('remove: exactly one block goes, every other byte stays', async (t) => {
  const withoutSchool = removeTenantText(original, 'school', file);
  t.equal(
    withoutSchool,
    original.replace(
      '[tenants.school]\napi_secret = \'school-secret-bbbbbbbbbbbbbbbbbbbbbb\'\napp_id = "school-app"\n  # note inside the block\napp_secret = "school-app-secret-cccccccccccccccc"\n\n',
      '',
    ),
    'the block and one blank line; the comment above it (it describes that table) stays',
  );
  t.same(
    fileTenants(parseRegistry(withoutSchool, null)).map((x) => x.id),
    ['moodle', 'x.y'],
  );
  const withoutXy = removeTenantText(original, 'x.y', file);
  t.equal(
    withoutXy,
    original.replace('[tenants."x.y"]\napi_secret = """xy-secret\n[tenants.fake]\ndddddddddddddd"""\n\n', ''),
    'the multi-line value goes with its block; the trailing comment stays',
  );
  const withoutMoodle = removeTenantText(original, 'moodle', file);
  t.ok(
    withoutMoodle.startsWith('# Tenants of this instance. Keep this file 0600.\n\n# the school platform'),
    "the file's first comment stays",
  );
  t.throws(() => removeTenantText(original, 'fake', file), TenantRefused, 'a header inside a string is not a block');
  t.throws(
    () => removeTenantText('[tenants]\nacme = { api_secret = "x" }\n', 'acme', file),
    /not written as one \[tenants\.acme\] table/,
    'an inline table is left to the operator',
  );
});

t.test('rotate: only the value changes; key spacing and comment stay', async (t) => {
  const next = setTenantValueText(original, 'moodle', 'api_secret', 'new-moodle-secret-gggggggggggggggggg', file);
  t.equal(next, original.replace('"moodle-secret-aaaaaaaaaaaaaaaaaaaaaa"', '"new-moodle-secret-gggggggggggggggggg"'));
  const school = setTenantValueText(original, 'school', 'api_secret', 'new-school-hhhhhhhhhhhhhhhhhhhhhhhhh', file);
  t.equal(
    school,
    original.replace("'school-secret-bbbbbbbbbbbbbbbbbbbbbb'", '"new-school-hhhhhhhhhhhhhhhhhhhhhhhhh"'),
    'a literal string becomes a basic one, nothing else moves',
  );
  const app = setTenantValueText(original, 'school', 'app_secret', 'new-app-iiiiiiiiiiiiiiiiiiiiiiiiiiii', file);
  t.equal(app, original.replace('"school-app-secret-cccccccccccccccc"', '"new-app-iiiiiiiiiiiiiiiiiiiiiiiiiiii"'));
  t.throws(
    () => setTenantValueText(original, 'x.y', 'api_secret', 'z', file),
    /not a one-line string/,
    'a multi-line value is left to the operator',
  );
  t.throws(
    () => setTenantValueText(original, 'moodle', 'app_secret', 'z', file),
    /no app_secret line/,
    'a key the block lacks',
  );
  t.throws(
    () => setTenantValueText(original, 'moodle', 'api_secret', 'a"b', file),
    TenantRefused,
    'a value that would end its string early is never written',
  );
});

t.test("checkEdit: the daemon's parser decides, and the result must be what was meant", async (t) => {
  const before = fileTenants(parseRegistry(original, null));
  const dup = appendTenantText(original, tenantOf('dup', 'moodle-secret-aaaaaaaaaaaaaaaaaaaaaa'));
  t.throws(
    () => checkEdit(dup, none, [...before, tenantOf('dup', 'moodle-secret-aaaaaaaaaaaaaaaaaaaaaa')], file),
    /same api_secret/,
    'a duplicate api secret',
  );
  const dupPrimary = appendTenantText(original, tenantOf('p2', primary.apiSecret));
  t.throws(
    () => checkEdit(dupPrimary, primary, [...before, tenantOf('p2', primary.apiSecret)], file),
    /same api_secret/,
    "the primary tenant's secret",
  );
  const dupApp = appendTenantText(original, tenantOf('a2', null, 'school-app', 'other-secret-jjjjjjjjjjjjjjjjjjjjjjj'));
  t.throws(
    () =>
      checkEdit(
        dupApp,
        none,
        [...before, tenantOf('a2', null, 'school-app', 'other-secret-jjjjjjjjjjjjjjjjjjjjjjj')],
        file,
      ),
    /same app_id/,
    'a duplicate app id',
  );
  const dupId = appendTenantText(original, tenantOf('moodle', 'another-kkkkkkkkkkkkkkkkkkkkkkkkkk'));
  t.throws(
    () => checkEdit(dupId, none, [...before, tenantOf('moodle', 'another-kkkkkkkkkkkkkkkkkkkkkkkkkk')], file),
    /line \d+, column \d+/,
    'a duplicate id is a TOML error with line and column',
  );
  t.throws(
    () => checkEdit(original, none, before.slice(1), file),
    /did not give the intended registry/,
    'an edit that missed is refused',
  );
  try {
    checkEdit('[tenants.a]\napi_secret = "open\n', none, [], file);
    t.fail('broken TOML');
  } catch (err) {
    t.ok(err instanceof RegistryError && err.line === 2 && err.column !== null, 'broken TOML: line and column');
  }
});

t.test('holderOf: who uses a value, the primary tenant included', async (t) => {
  const snap = parseRegistry(original, primary.apiSecret);
  t.equal(holderOf(primary.apiSecret, snap, primary), 'the primary tenant (api_secret)');
  t.equal(holderOf('primary-app', snap, primary), 'the primary tenant (app_id)');
  t.equal(holderOf('school-app', snap, primary), 'tenant school (app_id)');
  t.equal(
    holderOf('school-app-secret-cccccccccccccccc', snap, primary),
    'tenant school (app_secret)',
    'a secret used as another kind of credential',
  );
  t.equal(
    holderOf('school-app', snap, primary, { id: 'school', key: 'app_id' }),
    null,
    'its own value is no duplicate',
  );
  t.equal(holderOf('unused', snap, primary), null);
});

t.test('abuse: ids and values', async (t) => {
  for (const bad of ['a]b', 'a\nb', 'ünïcode', 'x'.repeat(65), '', '.hidden', 'a b', 'a"b', 'primary', 'a\u202eb']) {
    t.type(tenantIdProblem(bad), 'string', `id ${shown(bad)} refused`);
  }
  for (const good of ['a.b', 'x'.repeat(64), 'A_b-9']) t.equal(tenantIdProblem(good), null, `id ${good} accepted`);
  for (const [bad, why] of [
    ['a"b', /quotes/],
    ['a\\b', /backslash/],
    ['a\nb', /control/],
    ['a\rb', /control/],
    ['a\tb', /control/],
    ['a\u0000b', /control/],
    ['a\u001b[31mb', /control/],
    ['a\u007fb', /control/],
    ['a\u0085b', /control/],
    ['a\u2028b', /control/],
    ['a\u202eb', /invisible/],
    ['a\u200bb', /invisible/],
    ['a\ud800b', /Unicode/],
    [' lead', /white space/],
    ['   ', /empty/],
  ] as const) {
    t.match(valueProblem(bad), why, `value ${shown(bad)} refused`);
  }
  t.equal(valueProblem("it's-ünïcode-😀-fine"), null, 'single quotes and non-ASCII are fine in a basic string');
  const odd = tenantOf('odd', "it's-ünïcode-😀-fine-llllllllllllllllllll");
  t.same(parseRegistry(appendTenantText('', odd), null).byId.get('odd'), odd, 'and read back exactly');
});

t.test('10,000 tenants: add, rotate and remove stay correct', async (t) => {
  const parts: string[] = [];
  const tenants = [];
  for (let i = 0; i < 10_000; i++) {
    const tenant = tenantOf(`t${i}`, `secret-${i}-${'m'.repeat(32)}`);
    tenants.push(tenant);
    parts.push(`[tenants.t${i}]\napi_secret = "${tenant.apiSecret}"\n`);
  }
  const big = parts.join('\n');
  const started = Date.now();
  const added = appendTenantText(big, tenantOf('new', 'new-secret-nnnnnnnnnnnnnnnnnnnnnnnnnnnnn'));
  checkEdit(added, none, [...tenants, tenantOf('new', 'new-secret-nnnnnnnnnnnnnnnnnnnnnnnnnnnnn')], file);
  const rotated = setTenantValueText(added, 't5000', 'api_secret', 'rotated-oooooooooooooooooooooooooooooo', file);
  t.equal(
    rotated.length,
    added.length - `secret-5000-${'m'.repeat(32)}`.length + 'rotated-oooooooooooooooooooooooooooooo'.length,
    'one value replaced',
  );
  const removed = removeTenantText(rotated, 't9999', file);
  const snap = checkEdit(
    removed,
    none,
    [
      ...tenants
        .slice(0, 9999)
        .map((x) => (x.id === 't5000' ? { ...x, apiSecret: 'rotated-oooooooooooooooooooooooooooooo' } : x)),
      tenantOf('new', 'new-secret-nnnnnnnnnnnnnnnnnnnnnnnnnnnnn'),
    ],
    file,
  );
  t.equal(snap.tenants.length, 10_000, '9,999 old tenants and the new one');
  t.comment(`10,000 tenants: append + rotate + remove + three full parses in ${Date.now() - started} ms`);
});
