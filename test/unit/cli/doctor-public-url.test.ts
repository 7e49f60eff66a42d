// Issue 29, point 1: doctor fails when meeting-API joins would be sent to a loopback or
// localhost address while the nginx site serves a public name.
import { readFileSync, writeFileSync } from 'node:fs';
import t from 'tap';
import { doctorJson, expectFailure, healthy } from '../../helpers/doctor.js';

function servePublicName(nginxFile: string, name: string): void {
  writeFileSync(
    nginxFile,
    readFileSync(nginxFile, 'utf8').replace(/^(\s*)listen (.*);$/m, `$1listen $2;\n$1server_name ${name};`),
  );
}

t.test('no public name in the site: the default join base is not judged', async (t) => {
  const s = await healthy(t, { light: true });
  const { byId } = await doctorJson(t, s);
  t.match(byId.get('public-url'), {
    status: 'ok',
    detail: /joins go to http:\/\/localhost:3000 .*no public server_name/,
  });
});

t.test('a site serving meet.example.org while joins go to localhost fails, naming the setting to set', async (t) => {
  const s = await healthy(t, { light: true });
  servePublicName(s.nginxFile, 'meet.example.org');
  await expectFailure(
    t,
    s,
    'Join address',
    /joins go to http:\/\/localhost:3000 \(COMPAT_FRONTEND_URL\) while .* serves meet\.example\.org/,
    /set SERVICE_PUBLIC_URL=https:\/\/meet\.example\.org in the env file \(meetctl install compat --public-url/,
  );
  s.env({ COMPAT_FRONTEND_URL: 'http://127.0.0.1:3000', SERVICE_PUBLIC_URL: 'https://meet.example.org' });
  const explicit = await doctorJson(t, s);
  t.match(
    explicit.byId.get('public-url'),
    { status: 'fail', detail: /joins go to http:\/\/127\.0\.0\.1:3000/ },
    'an explicit loopback join base fails too',
  );
});

t.test('SERVICE_PUBLIC_URL in the env file puts the check right', async (t) => {
  const s = await healthy(t, { light: true });
  servePublicName(s.nginxFile, 'meet.example.org');
  s.env({ SERVICE_PUBLIC_URL: 'https://meet.example.org' });
  const { byId } = await doctorJson(t, s);
  t.match(byId.get('public-url'), {
    status: 'ok',
    detail: 'joins go to https://meet.example.org (COMPAT_FRONTEND_URL (from SERVICE_PUBLIC_URL))',
  });
});
