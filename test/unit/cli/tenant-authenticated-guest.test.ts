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
