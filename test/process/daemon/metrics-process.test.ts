// Issue 29, point 12, where the behaviour is the process: a metrics address off loopback stops
// `meetctl serve` with exit 2, and the daemon's own Janus (its child process) is watched and
// its restart counted. The rest of the metrics is checked in-process in metrics.test.ts.
import { execFileSync } from 'node:child_process';
import t from 'tap';
import { stopGracefully } from '../../helpers/api.js';
import { logMatch } from '../../helpers/compat.js';
import { runMeetctl, startDaemon, tempDataDir } from '../../helpers/daemon.js';
import { janusMissing } from '../../helpers/janus.js';
import { until } from '../../helpers/net.js';

async function scrape(url: string): Promise<string> {
  const answer = await fetch(url);
  return answer.text();
}

/** One sample line's value, found by its name and labels as they appear in the text (`name{a="b"}`); null when absent. */
function sample(text: string, series: string): number | null {
  for (const line of text.split('\n')) {
    if (line.startsWith('#')) continue;
    const space = line.lastIndexOf(' ');
    if (line.slice(0, space) === series) return Number(line.slice(space + 1));
  }
  return null;
}

t.test('a metrics address off loopback stops the start unless allowed', async (t) => {
  const refused = await runMeetctl(['serve'], {
    SERVICE_DATA_DIR: tempDataDir(),
    SERVICE_METRICS_ADDR: '0.0.0.0:9464',
  });
  t.equal(refused.code, 2, 'a public metrics address stops the start');
  t.match(
    refused.stderr,
    /SERVICE_METRICS_ADDR must be a loopback address[^\n]*"0\.0\.0\.0:9464"[^\n]*SERVICE_METRICS_ALLOW_REMOTE=true/,
  );
});

t.test("with the daemon's own Janus: up, and its restart counted", { skip: janusMissing ?? false }, async (t) => {
  const d = await startDaemon({
    env: { SERVICE_MEDIA: 'janus', SERVICE_RTP_PORTS: '44600-44700', SERVICE_METRICS_ADDR: '127.0.0.1:0' },
  });
  t.teardown(() => stopGracefully(d));
  const url = (await logMatch(d, /"url":"(http:[^"]+)"[^\n]*"msg":"metrics listening/))[1]!;
  const first = await scrape(url);
  t.equal(sample(first, 'meet_janus_up'), 1, 'Janus answers');
  t.equal(sample(first, 'meet_janus_restarts_total'), 0, 'never restarted');
  const janusPid = Number(
    execFileSync('pgrep', ['-P', String(d.child.pid)], { encoding: 'utf8' })
      .trim()
      .split('\n')[0],
  );
  t.ok(janusPid > 0, "Janus runs as the daemon's child");
  process.kill(janusPid, 'SIGKILL');
  await until(
    'the restart to be counted and Janus up again',
    async () => {
      const text = await scrape(url);
      return sample(text, 'meet_janus_restarts_total') === 1 && sample(text, 'meet_janus_up') === 1;
    },
    15_000,
    100,
  );
  t.pass('one restart counted, Janus up again');
});
