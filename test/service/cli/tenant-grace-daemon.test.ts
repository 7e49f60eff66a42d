// Issue 29 point 11 against a real daemon (run.ts's start in the test's process, its file
// watcher, real sockets and SQLite; stopped and started again as SIGTERM and systemd would): after
// `meetctl tenant rotate` the platform's old secret keeps working for the grace, also after
// a restart (the end is in the file), and stops at its end without any change to the file,
// or at once on `rotate --finish`.
import { statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import t from 'tap';
import { assertSuccess, compatInProcessFor, ConfapiClient } from '../../helpers/compat.js';
import { claims, mainAppId, mainSecret, mint } from '../../helpers/gateway.js';
import { eventually, generated, moodleSecret, primary, schoolAppSecret, setup, tenant } from '../../helpers/tenants.js';

t.test(
  'the old secret works during the grace and after a restart; --finish ends it; a short grace ends by itself',
  async (t) => {
    const s = setup(t);
    writeFileSync(join(s.dir, 'meet.env'), `COMPAT_API_SHARED_SECRET=${primary}\nSERVICE_TENANTS_FILE=${s.file}\n`, {
      mode: 0o600,
    });
    const env = {
      COMPAT_API_SHARED_SECRET: primary,
      SERVICE_TENANTS_FILE: s.file,
      COMPAT_JITSI_APP_ID: mainAppId,
      COMPAT_JITSI_APP_SECRET: mainSecret,
    };
    let d = await compatInProcessFor(t, env);
    const answer = async (secret: string, path = '/confapi/api') =>
      (await new ConfapiClient(d.compatUrl, secret, 'sha1', 'plus', path).get('getMeetings')).xml?.returncode ===
      'SUCCESS'
        ? 'works'
        : 'refused';
    assertSuccess(
      t,
      await new ConfapiClient(d.compatUrl, moodleSecret, 'sha256').get('create', [['meetingID', 'lesson-1']]),
      'moodle makes a meeting',
    );

    const rotated = await tenant(s, ['rotate', 'moodle']);
    t.equal(rotated.code, 0, rotated.stderr);
    const fresh = generated(rotated.stdout).api_secret!;
    await eventually(t, 'the new secret works', async () => (await answer(fresh)) === 'works');
    // Wait past the reload debounce and then some: the old secret is not refused 236 ms later.
    await new Promise((r) => setTimeout(r, 1000));
    t.equal(await answer(moodleSecret), 'works', 'the old secret still works a second after the rotation');
    t.equal(await answer(moodleSecret, '/confapi/moodle/api'), 'works', 'also on the path that names the tenant');
    assertSuccess(
      t,
      await new ConfapiClient(d.compatUrl, moodleSecret).get('getMeetingInfo', [['meetingID', 'lesson-1']]),
      "the old secret still reaches the tenant's meeting",
    );
    const shown = await tenant(s, ['show', 'moodle']);
    t.match(shown.stdout, /previous_api_secret\s+\*\*\* valid until \d{4}-/, 'tenant show lists it with its end');

    await d.stop();
    d = await compatInProcessFor(t, env);
    t.equal(await answer(moodleSecret), 'works', 'after a restart the old secret still works: its end is in the file');
    t.equal(await answer(fresh), 'works', 'and so does the new one');

    // The gateway: a token the school's application signs with its old app secret.
    const gateway = async (secret: string) => {
      const jwt = mint(claims('math', { iss: 'school-app' }), { secret });
      const response = await fetch(`${d.compatUrl}/videoconf/math?jwt=${jwt}`, {
        redirect: 'manual',
        signal: AbortSignal.timeout(10_000),
      });
      await response.text();
      return response.status === 302 ? 'works' : 'refused';
    };
    t.equal(await gateway(schoolAppSecret), 'works', 'the school app enters its room');
    const appRotated = await tenant(s, ['rotate', 'school', '--app']);
    t.equal(appRotated.code, 0, appRotated.stderr);
    const freshApp = generated(appRotated.stdout).app_secret!;
    await eventually(t, 'the new app secret works', async () => (await gateway(freshApp)) === 'works');
    t.equal(await gateway(schoolAppSecret), 'works', 'the old app secret still works during the grace');
    t.equal((await tenant(s, ['rotate', 'school', '--finish'])).code, 0);
    await eventually(
      t,
      '--finish: the old app secret stops',
      async () => (await gateway(schoolAppSecret)) === 'refused',
    );

    const finished = await tenant(s, ['rotate', 'moodle', '--finish']);
    t.equal(finished.code, 0, finished.stderr);
    await eventually(t, '--finish: the old secret stops', async () => (await answer(moodleSecret)) === 'refused');
    t.equal(await answer(fresh), 'works', 'the new one goes on');

    const short = await tenant(s, ['rotate', 'moodle', '--grace', '5s']);
    t.equal(short.code, 0, short.stderr);
    const newest = generated(short.stdout).api_secret!;
    await eventually(t, 'the newest secret works', async () => (await answer(newest)) === 'works');
    t.equal(await answer(fresh), 'works', 'the one it replaced works during its 5 s');
    const written = statSync(s.file).mtimeMs;
    await eventually(t, 'and stops at its end', async () => (await answer(fresh)) === 'refused', 10_000);
    t.equal(
      statSync(s.file).mtimeMs,
      written,
      'without any change to the file: the daemon compares the end with its clock',
    );
    const leaking = d.lines.filter((line) =>
      [moodleSecret, fresh, newest, primary, schoolAppSecret, freshApp].some((secret) => line.includes(secret)),
    );
    t.same(leaking, [], "no secret in the daemon's log");
  },
);
