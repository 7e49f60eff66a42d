// Issue 29, point 6: the site routes the meeting API's upstream path /bigbluebutton/ by default
// (Moodle, Canvas and Greenlight call it; --no-legacy-api-path leaves it out), and every URL the
// README tells a platform to enter works through it. Point 15 (API root): /bigbluebutton/api and
// /confapi/api answer with and without the slash, never with nginx's 301. Against the operator's
// path: install, a daemon from the env file it wrote, `meetctl nginx` from the same file, real nginx.
import t from 'tap';
import { runCli } from '../../helpers/cli.js';
import { ConfapiClient, fetchAnswer, type ConfapiAnswer } from '../../helpers/compat.js';
import { installedSite } from '../../helpers/installed-site.js';

/**
 * The base Moodle's mod_bigbluebuttonbn builds from its "BigBlueButton server URL": a trailing
 * `/` goes, then, only when the URL ends in `/api`, PHP's rtrim($url, '/api') strips every
 * trailing `/`, `a`, `p` and `i`; `api/` is appended.
 */
function moodleApiBase(entered: string): string {
  let url = entered.trim();
  if (url.endsWith('/')) url = url.replace(/\/+$/, '');
  if (url.endsWith('/api')) url = url.replace(/[/api]+$/, '');
  return `${url}/api/`;
}

t.setTimeout(240_000);

t.test(
  'by default the site routes /bigbluebutton/: the URLs the README gives each platform reach the meeting API',
  async (t) => {
    const site = await installedSite(t);
    const secret = site.env.COMPAT_API_SHARED_SECRET!;
    const through = (path: string) => new ConfapiClient(site.url, secret, 'sha1', 'plus', path).get('getMeetings');
    const moodle = async (entered: string): Promise<ConfapiAnswer> => {
      const base = new URL(moodleApiBase(`${site.url}${entered}`));
      return through(base.pathname.replace(/\/$/, ''));
    };
    for (const entered of [
      '/bigbluebutton/',
      '/bigbluebutton/api/',
      '/bigbluebutton',
      '/confapi/',
      '/confapi',
      '/confapi/primary/',
    ]) {
      const answer = await moodle(entered);
      t.equal(
        answer.xml?.returncode,
        'SUCCESS',
        `Moodle with ${entered} calls ${moodleApiBase(entered)}: ${answer.status} ${answer.text.slice(0, 120)}`,
      );
    }
    // What the README warns about: Moodle's trim turns …/confapi/api into …/conf/api/.
    for (const entered of ['/confapi/api', '/confapi/api/']) {
      t.equal(moodleApiBase(entered), '/conf/api/', `${entered} becomes /conf/api/`);
      t.not((await moodle(entered)).xml?.returncode, 'SUCCESS', `Moodle with ${entered} does not reach the API`);
    }
    // Canvas always calls /bigbluebutton/api/ on the host it is given; Greenlight adds /api to …/bigbluebutton/.
    t.equal(
      (await through('/bigbluebutton/api')).xml?.returncode,
      'SUCCESS',
      'Canvas and Greenlight: /bigbluebutton/api/{call}',
    );
    t.equal(
      (await through('/bigbluebutton/primary/api')).xml?.returncode,
      'SUCCESS',
      'a tenant in the legacy path: /bigbluebutton/{tenant}/api/{call}',
    );
    const forged = await new ConfapiClient(
      site.url,
      'not-the-secret-of-this-installation-0123',
      'sha1',
      'plus',
      '/bigbluebutton/api',
    ).get('getMeetings');
    t.equal(forged.xml?.messageKey, 'checksumError', 'checked by the compat listener, not answered by nginx');

    const explicit = await runCli(
      [
        'nginx',
        '--http-only',
        '--listen',
        `127.0.0.1:${site.port}`,
        '--site-access-log',
        site.nginx.accessLog,
        '--out',
        site.nginx.site,
      ],
      {
        SERVICE_CONFIG_DIR: site.world.etc,
      },
    );
    t.equal(explicit.code, 0, explicit.stderr);
    t.match(
      explicit.stdout,
      /unchanged/,
      'the old flag --legacy-api-path is still accepted and renders the same file as the default',
    );
    const old = await runCli(
      [
        'nginx',
        '--http-only',
        '--legacy-api-path',
        '--listen',
        `127.0.0.1:${site.port}`,
        '--site-access-log',
        site.nginx.accessLog,
        '--out',
        site.nginx.site,
      ],
      {
        SERVICE_CONFIG_DIR: site.world.etc,
      },
    );
    t.equal(old.code, 0, old.stderr);
    t.match(old.stdout, /unchanged/, '--legacy-api-path: the same file');
  },
);

t.test('--no-legacy-api-path leaves /bigbluebutton/ out; /confapi/ still answers', async (t) => {
  const site = await installedSite(t, {
    flags: (port) => ['--http-only', '--no-legacy-api-path', '--listen', `127.0.0.1:${port}`],
  });
  const secret = site.env.COMPAT_API_SHARED_SECRET!;
  const legacy = await new ConfapiClient(site.url, secret, 'sha1', 'plus', '/bigbluebutton/api').get('getMeetings');
  t.equal(legacy.status, 404, "/bigbluebutton/api/ is the engine's 404");
  t.equal(legacy.xml, null, 'not a meeting-API answer');
  t.equal(
    (await new ConfapiClient(site.url, secret).get('getMeetings')).xml?.returncode,
    'SUCCESS',
    '/confapi/api/ answers',
  );
});

t.test('the API root answers with and without the slash, the tenant forms too: no 301', async (t) => {
  // With the old flag: its site answered /bigbluebutton/api (no slash) with nginx's 301.
  const site = await installedSite(t, {
    flags: (port) => ['--http-only', '--legacy-api-path', '--listen', `127.0.0.1:${port}`],
  });
  for (const root of [
    '/bigbluebutton/api',
    '/bigbluebutton/api/',
    '/confapi/api',
    '/confapi/api/',
    '/bigbluebutton/primary/api',
    '/bigbluebutton/primary/api/',
    '/confapi/primary/api',
    '/confapi/primary/api/',
  ]) {
    const answer = await fetchAnswer(`${site.url}${root}`);
    t.equal(
      answer.status,
      200,
      `${root}: 200, not nginx's redirect (${answer.status} ${answer.headers.get('location') ?? ''})`,
    );
    t.equal(answer.xml?.returncode, 'SUCCESS', `${root}: the version answer`);
    t.match(answer.xml?.version, /\S/, `${root}: names the version`);
  }
});
