// Issue 33 point 1, the command: `meetctl tenant add|set --[no-]authenticated-guest` writes the
// tenant's own authenticated_guest into the tenants file (comments and other tenants kept);
// `set --inherit-authenticated-guest` removes it, so COMPAT_AUTHENTICATED_GUEST applies again.
import { readFileSync } from 'node:fs';
import t from 'tap';
import { parseRegistry } from '../../../src/compat/tenants/parse.js';
import { generated, sample, setup, tenant } from '../../helpers/tenants.js';

t.test('tenant add and set --authenticated-guest', async (t) => {
  const s = setup(t);
  const added = await tenant(s, ['add', 'greenlight', '--authenticated-guest']);
  t.equal(added.code, 0, added.stderr);
  s.secrets.add(generated(added.stdout).api_secret!);
  const registry = () => parseRegistry(readFileSync(s.file, 'utf8'), null);
  t.equal(registry().byId.get('greenlight')?.authenticatedGuest, true, 'add writes authenticated_guest = true');
  t.ok(readFileSync(s.file, 'utf8').startsWith(sample), 'the file before it is kept byte for byte');

  const off = await tenant(s, ['set', 'moodle', '--no-authenticated-guest']);
  t.equal(off.code, 0, off.stderr);
  t.equal(registry().byId.get('moodle')?.authenticatedGuest, false, 'set --no-authenticated-guest writes false');
  t.match(
    readFileSync(s.file, 'utf8'),
    /api_secret = "[^"]+"   # from Moodle's settings\nauthenticated_guest = false\n/,
  );
  const on = await tenant(s, ['set', 'moodle', '--authenticated-guest']);
  t.equal(on.code, 0, on.stderr);
  t.equal(registry().byId.get('moodle')?.authenticatedGuest, true, 'set again replaces the line');
  t.equal(readFileSync(s.file, 'utf8').match(/authenticated_guest/g)?.length, 2, 'one line per tenant, no more');
  const inherit = await tenant(s, ['set', 'moodle', '--inherit-authenticated-guest']);
  t.equal(inherit.code, 0, inherit.stderr);
  t.equal(registry().byId.get('moodle')?.authenticatedGuest, undefined, 'inherit removes it');
  t.ok(readFileSync(s.file, 'utf8').startsWith(sample), 'and leaves the file as it was before');

  const noApi = await tenant(s, ['set', 'school', '--authenticated-guest']);
  t.not(noApi.code, 0, 'an embed-only tenant has no meeting-API joins');
  t.match(noApi.stderr, /no meeting-API secret/);
  const nothing = await tenant(s, ['set', 'moodle']);
  t.not(nothing.code, 0, 'set without a setting is a usage error');
  t.match(nothing.stderr, /nothing to set/);
  const missing = await tenant(s, ['set', 'nobody', '--authenticated-guest']);
  t.match(missing.stderr, /no tenant nobody/);
});

// `tenant list` and `tenant show` say which it is: on, off, or inherited (COMPAT_AUTHENTICATED_GUEST
// applies); an embed-only tenant has no meeting-API joins, so `-` (null in JSON).
t.test('tenant list and show display authenticated_guest', async (t) => {
  const s = setup(t);
  const added = await tenant(s, ['add', 'greenlight', '--authenticated-guest']);
  s.secrets.add(generated(added.stdout).api_secret!);
  t.equal((await tenant(s, ['add', 'canvas', '--no-authenticated-guest'])).code, 0);

  const listed = await tenant(s, ['list']);
  t.equal(listed.code, 0, listed.stderr);
  t.match(listed.stdout, /^ID\s+SOURCE\s+API SECRET\s+APP ID\s+APP SECRET\s+AUTH GUEST\n/, 'a column for it');
  t.match(listed.stdout, /\nmoodle\s+tenants file\s+\*\*\*\s+-\s+-\s+inherited\n/, 'no setting: inherited');
  t.match(listed.stdout, /\nschool\s+tenants file\s+-\s+school-app\s+\*\*\*\s+-\n/, 'embed-only: -');
  t.match(listed.stdout, /\ngreenlight\s+tenants file\s+\*\*\*\s+-\s+-\s+on\n/, 'its own: on');
  t.match(listed.stdout, /\ncanvas\s+tenants file\s+\*\*\*\s+-\s+-\s+off\n/, 'its own: off');
  const json = JSON.parse((await tenant(s, ['list', '--json'])).stdout) as {
    id: string;
    authenticated_guest: unknown;
  }[];
  t.same(
    json.map((v) => [v.id, v.authenticated_guest]),
    [
      ['moodle', 'inherited'],
      ['school', null],
      ['greenlight', 'on'],
      ['canvas', 'off'],
    ],
    'list --json',
  );

  t.match((await tenant(s, ['show', 'greenlight'])).stdout, /\nauthenticated_guest\s+on\n/, 'show: on');
  t.match((await tenant(s, ['show', 'moodle'])).stdout, /\nauthenticated_guest\s+inherited\n/, 'show: inherited');
  t.equal(JSON.parse((await tenant(s, ['show', 'canvas', '--json'])).stdout).authenticated_guest, 'off');
  t.equal(JSON.parse((await tenant(s, ['show', 'school', '--json'])).stdout).authenticated_guest, null);
});
