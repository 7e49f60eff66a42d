// Issue 29, point 12: Prometheus metrics on a listener of their own (SERVICE_METRICS_ADDR), off
// by default, loopback unless SERVICE_METRICS_ALLOW_REMOTE=true, never on the public listeners.
// The daemon is started from the env file `meetctl install compat` wrote, as systemd starts it,
// in the test's process (run.ts's start, real sockets, real SQLite). Counts are asserted, never
// timings. What needs a process (the refused start's exit code, Janus as the daemon's child) is
// in metrics-process.test.ts.
import { readFileSync } from 'node:fs';
import t from 'tap';
import { dataDirFor, logRecords, rooms, type Tap } from '../../helpers/api.js';
import { logMatch } from '../../helpers/compat.js';
import { inProcessDaemonFor, type InProcessDaemon } from '../../helpers/in-process-daemon.js';
import { world } from '../../helpers/install-world.js';
import { connectLive, liveUrl, refusedUpgrade } from '../../helpers/live.js';
import { testServerKey } from '../../helpers/licence.js';
import { until } from '../../helpers/net.js';
import { asSession, Browser, moderator } from '../../helpers/waiting.js';

/** One sample line's value, found by its name and labels as they appear in the text (`name{a="b"}`); null when absent. */
function sample(text: string, series: string): number | null {
  for (const line of text.split('\n')) {
    if (line.startsWith('#')) continue;
    const space = line.lastIndexOf(' ');
    if (line.slice(0, space) === series) return Number(line.slice(space + 1));
  }
  return null;
}

/** Every metric family the scrape names (HELP lines), and the sample names it holds. */
function namesIn(text: string): Set<string> {
  const names = new Set<string>();
  for (const line of text.split('\n')) {
    const help = /^# HELP (\S+)/.exec(line);
    if (help) names.add(help[1]!);
    else if (line && !line.startsWith('#')) names.add(/^[^{ ]+/.exec(line)![0]);
  }
  return names;
}

async function scrape(url: string): Promise<{ status: number; type: string | null; text: string }> {
  const answer = await fetch(url);
  return { status: answer.status, type: answer.headers.get('content-type'), text: await answer.text() };
}

async function installedDaemon(
  t: Tap,
  extra: Record<string, string>,
): Promise<{ d: InProcessDaemon; compatUrl: string; metricsUrl: string }> {
  const w = world(t);
  const installed = await w.install(['--key', await testServerKey(), '--no-open-rooms']);
  t.equal(installed.code, 0, installed.stderr);
  const fromFile = w.envFile();
  const env = {
    ...w.env,
    ...fromFile,
    SERVICE_MEDIA: 'mesh',
    SERVICE_HTTP_ADDR: '127.0.0.1:0',
    COMPAT_HTTP_ADDR: '127.0.0.1:0',
    ...extra,
  };
  const d = await inProcessDaemonFor(t, fromFile.SERVICE_DATA_DIR!, env);
  const compatUrl = (await logMatch(d, /"url":"(http:[^"]+)"[^\n]*"msg":"compat listening/))[1]!;
  const metricsUrl = (await logMatch(d, /"url":"(http:[^"]+)"[^\n]*"msg":"metrics listening/))[1]!;
  return { d, compatUrl, metricsUrl };
}

t.test(
  'an installed daemon with SERVICE_METRICS_ADDR: its own listener, counters that move, nothing on the public listeners',
  async (t) => {
    const { d, compatUrl, metricsUrl } = await installedDaemon(t, { SERVICE_METRICS_ADDR: '127.0.0.1:0' });
    t.match(metricsUrl, /^http:\/\/127\.0\.0\.1:\d+\/metrics$/, 'on loopback');

    const first = await scrape(metricsUrl);
    t.equal(first.status, 200);
    t.match(first.type, /^text\/plain; version=0\.0\.4/, 'Prometheus text format');
    for (const name of [
      'process_cpu_user_seconds_total',
      'process_resident_memory_bytes',
      'nodejs_eventloop_lag_seconds',
      'nodejs_heap_size_used_bytes',
    ]) {
      t.ok(namesIn(first.text).has(name), `process metric ${name}`);
    }
    t.equal(sample(first.text, 'meet_waiting_knocks_total'), 0, 'no knock yet');
    t.equal(sample(first.text, 'meet_waiting_requests'), 0);
    t.equal(sample(first.text, 'meet_meetings_running'), 0);
    t.equal(sample(first.text, 'meet_live_connections'), 0);
    const days = sample(first.text, 'meet_licence_days_left{module="compat"}');
    t.ok(days !== null && days > 0, `the compat licence's days left (${days})`);
    t.notOk(namesIn(first.text).has('meet_janus_up'), 'no Janus series with the mesh');

    for (const [listener, base] of [
      ['engine', d.url],
      ['compat', compatUrl],
    ] as const) {
      const answer = await fetch(`${base}/metrics`);
      await answer.text();
      t.equal(answer.status, 404, `/metrics is not a route of the ${listener} listener`);
    }
    const elsewhere = await fetch(metricsUrl.replace(/\/metrics$/, '/'));
    t.equal(elsewhere.status, 404, 'the metrics listener answers /metrics only');
    await elsewhere.text();

    // Three knocks: one admitted, one refused, one barred.
    t.equal((await rooms.create(d, { room_id: 'metered', name: 'Metered', waiting_room: 'all' })).status, 201);
    const mod = await moderator(d, 'metered');
    const browsers = ['Ada', 'Bob', 'Cy'].map(() => new Browser(d, 'metered'));
    for (const [i, browser] of browsers.entries())
      t.equal((await browser.knock({ name: ['Ada', 'Bob', 'Cy'][i] })).status, 202);
    const waiting = await scrape(metricsUrl);
    t.equal(sample(waiting.text, 'meet_waiting_knocks_total'), 3, 'knocks counted once committed');
    t.equal(sample(waiting.text, 'meet_waiting_requests'), 3, 'three waiting');
    t.equal(sample(waiting.text, 'meet_meetings_running'), 1, 'the moderator started a meeting');
    const commits = sample(waiting.text, 'meet_group_commit_duration_seconds_count{group="knocks"}');
    t.ok(commits !== null && commits >= 1 && commits <= 3, `the knocks went through group commits (${commits})`);

    const list = (await asSession.list(d, 'metered', mod.session)).body as { request_id: string; name: string }[];
    const id = (name: string) => list.find((item) => item.name === name)!.request_id;
    t.equal((await asSession.admit(d, 'metered', mod.session, { request_id: id('Ada') })).status, 200);
    t.equal((await asSession.refuse(d, 'metered', mod.session, { request_id: id('Bob') })).status, 200);
    t.equal((await asSession.refuse(d, 'metered', mod.session, { request_id: id('Cy'), bar: true })).status, 200);
    const decided = await scrape(metricsUrl);
    t.equal(sample(decided.text, 'meet_waiting_admissions_total'), 1, 'one admission');
    t.equal(sample(decided.text, 'meet_waiting_refusals_total{barred="false"}'), 1, 'one refusal');
    t.equal(sample(decided.text, 'meet_waiting_refusals_total{barred="true"}'), 1, 'one bar');
    t.equal(sample(decided.text, 'meet_waiting_requests'), 0, 'nobody waits any more');

    const { client } = await connectLive(d, 'metered', mod.session);
    t.equal(sample((await scrape(metricsUrl)).text, 'meet_live_connections'), 1, "the moderator's live connection");
    await client.close();
    await until(
      'the closed connection to leave the gauge',
      async () => sample((await scrape(metricsUrl)).text, 'meet_live_connections') === 0,
      5000,
      50,
    );
    // A refused upgrade is an answer like any other; an open socket is the gauge's, never a latency.
    t.equal((await refusedUpgrade(liveUrl(d, 'metered', 'not-a-session'))).status, 401);
    const live = (await scrape(metricsUrl)).text;
    t.equal(
      sample(live, 'meet_http_requests_total{family="live",status_class="4xx"}'),
      1,
      'the refused upgrade counted under live',
    );

    // Requests per route family and status class: the three knocks (202), and the public listeners' two /metrics 404s.
    t.equal(
      sample(decided.text, 'meet_http_requests_total{family="room.knock",status_class="2xx"}'),
      3,
      'knocks by family and class',
    );
    t.equal(
      sample(decided.text, 'meet_http_request_duration_seconds_count{family="room.knock",status_class="2xx"}'),
      3,
      'and timed',
    );
    t.equal(
      sample(
        decided.text,
        'meet_http_request_duration_seconds_bucket{family="room.knock",status_class="2xx",le="+Inf"}',
      ),
      3,
    );
    t.equal(
      sample(decided.text, 'meet_http_requests_total{family="unmatched",status_class="4xx"}'),
      2,
      "the two listeners' /metrics 404s, as unmatched routes",
    );
    const before = sample(decided.text, 'meet_http_requests_total{family="api.rooms",status_class="2xx"}') ?? 0;
    for (let i = 0; i < 4; i++) t.equal((await rooms.get(d, 'metered')).status, 200);
    const after = await scrape(metricsUrl);
    t.equal(
      sample(after.text, 'meet_http_requests_total{family="api.rooms",status_class="2xx"}'),
      before + 4,
      'four more rooms-API reads',
    );
    t.notOk(
      /family="[^"]*\/|family="[^"]*metered/.test(after.text),
      'families, never raw paths or room ids, label the requests',
    );

    t.notOk(
      logRecords(d).some((r) => r.level === 50),
      'nothing logged as an error',
    );
    // A scraper's keep-alive connection is open while the daemon stops: the stop does not wait for it.
    await scrape(metricsUrl);
    // As stopGracefully gives a spawned daemon 5 s before SIGKILL.
    const stopped = await Promise.race([
      d.stop().then(() => 'stopped'),
      new Promise((resolve) => setTimeout(resolve, 5000, 'still stopping after 5 s').unref()),
    ]);
    t.equal(stopped, 'stopped', 'a clean stop');
  },
);

t.test('the sample Grafana dashboard only asks for metrics a real scrape has', async (t) => {
  const { metricsUrl } = await installedDaemon(t, { SERVICE_METRICS_ADDR: '127.0.0.1:0' });
  const { text } = await scrape(metricsUrl);
  const names = namesIn(text);
  const dashboard = JSON.parse(
    readFileSync(new URL('../../../docs/grafana-dashboard.json', import.meta.url), 'utf8'),
  ) as {
    panels: { title: string; targets?: { expr: string }[] }[];
  };
  const used = new Set<string>();
  for (const panel of dashboard.panels) {
    for (const target of panel.targets ?? []) {
      for (const name of target.expr.match(/\b(?:meet|process|nodejs)_[a-z0-9_]+\b/g) ?? []) used.add(name);
    }
  }
  t.ok(used.size >= 10, `the dashboard uses the service's metrics (${[...used].join(', ')})`);
  // The Janus series exist only with Janus (janus-metrics in media-choice.test.ts would need a real Janus).
  for (const name of used) {
    if (name.startsWith('meet_janus_')) continue;
    const base = name.replace(/_(bucket|sum|count)$/, '');
    t.ok(names.has(name) || names.has(base), `${name} is in a real scrape`);
  }
});

t.test('off by default, and served off loopback where allowed', async (t) => {
  const d = await inProcessDaemonFor(t, dataDirFor(t));
  t.notOk(
    d.lines.some((line) => line.includes('metrics listening')),
    'no metrics listener without SERVICE_METRICS_ADDR',
  );

  const allowed = await inProcessDaemonFor(t, dataDirFor(t), {
    SERVICE_METRICS_ADDR: '0.0.0.0:0',
    SERVICE_METRICS_ALLOW_REMOTE: 'true',
  });
  const url = (await logMatch(allowed, /"url":"(http:[^"]+)"[^\n]*"msg":"metrics listening/))[1]!;
  t.match(url, /^http:\/\/0\.0\.0\.0:\d+\/metrics$/);
  const { status } = await scrape(url.replace('0.0.0.0', '127.0.0.1'));
  t.equal(status, 200, 'served where the operator allowed it');
});
