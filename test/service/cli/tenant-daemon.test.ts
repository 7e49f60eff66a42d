// Issue 13 point 3: `meetctl tenant` while the daemon runs: add, rotate and remove take
// effect within 2 seconds without a restart, and a hand-broken file leaves the daemon on the
// last good registry (and meetctl refuses to edit it). The daemon runs in the test's process
// (run.ts's start: its file watcher, real sockets and SQLite); meetctl edits the file beside it.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import t from 'tap';
import { assertFailed, assertSuccess, compatInProcessFor, ConfapiClient, logMatch } from '../../helpers/compat.js';
import { eventually, generated, moodleSecret, primary, setup, tenant } from '../../helpers/tenants.js';

t.test(
  'a running daemon picks up add, rotate, remove; a broken file leaves it on the last good registry',
  async (t) => {
    const s = setup(t);
    // What the installer writes: the primary secret and the file's name in the env file.
    writeFileSync(join(s.dir, 'meet.env'), `COMPAT_API_SHARED_SECRET=${primary}\nSERVICE_TENANTS_FILE=${s.file}\n`, {
      mode: 0o600,
    });
    const d = await compatInProcessFor(t, { COMPAT_API_SHARED_SECRET: primary, SERVICE_TENANTS_FILE: s.file });
    const works = (secret: string) => async () =>
      (await new ConfapiClient(d.compatUrl, secret).get('getMeetings')).xml?.returncode === 'SUCCESS';
    const refused = (secret: string) => async () =>
      (await new ConfapiClient(d.compatUrl, secret).get('getMeetings')).xml?.messageKey === 'checksumError';
    assertSuccess(
      t,
      await new ConfapiClient(d.compatUrl, moodleSecret).get('getMeetings'),
      'moodle works from the start',
    );

    const added = await tenant(s, ['add', 'acme']);
    t.equal(added.code, 0, added.stderr);
    const acme = generated(added.stdout).api_secret!;
    await eventually(t, "the new tenant's secret validates", works(acme));
    assertSuccess(
      t,
      await new ConfapiClient(d.compatUrl, acme, 'sha256').get('create', [['meetingID', 'acme-1']]),
      'acme creates a meeting',
    );

    // --grace 0: the old secret ends at once (tenant-grace-daemon.test.ts covers the grace).
    const rotated = await tenant(s, ['rotate', 'acme', '--api', '--grace', '0']);
    t.equal(rotated.code, 0, rotated.stderr);
    const acme2 = generated(rotated.stdout).api_secret!;
    await eventually(t, 'the rotated-out secret stops', refused(acme));
    assertSuccess(t, await new ConfapiClient(d.compatUrl, acme2).get('getMeetings'), 'the new secret works');
    assertSuccess(
      t,
      await new ConfapiClient(d.compatUrl, acme2).get('getMeetingInfo', [['meetingID', 'acme-1']]),
      'and still owns the meeting made with the old one',
    );

    t.equal((await tenant(s, ['remove', 'acme'])).code, 0);
    await eventually(t, "the removed tenant's secret stops", refused(acme2));
    assertSuccess(
      t,
      await new ConfapiClient(d.compatUrl, primary).get('getMeetings'),
      'the primary secret still works',
    );

    writeFileSync(s.file, `${readFileSync(s.file, 'utf8')}[tenants.garbage\nnot toml at all\n`);
    const logged = await logMatch(
      d,
      /"line":\d+,"column":\d+[^\n]*tenant registry not reloaded, the last good one stays/,
      3000,
    );
    t.ok(logged, 'the daemon logs why, with line and column');
    assertSuccess(
      t,
      await new ConfapiClient(d.compatUrl, moodleSecret).get('getMeetings'),
      'the last good registry stays',
    );
    assertFailed(
      t,
      await new ConfapiClient(d.compatUrl, acme2).get('getMeetings'),
      'checksumError',
      'and the removed tenant stays removed',
    );
    const refusedEdit = await tenant(s, ['add', 'later']);
    t.equal(refusedEdit.code, 2, 'meetctl refuses to edit the broken file');
    const leaking = d.lines.filter((line) =>
      [acme, acme2, moodleSecret, primary].some((secret) => line.includes(secret)),
    );
    t.same(leaking, [], "no secret in the daemon's log");
  },
);
