// TURN for real (issue 18 point 5): Debian's coturn runs the very command the container files
// give the compose `turn` service, and Chromium, given the ICE servers an admitted answer of the
// daemon carries, is allocated a relay on it; a forged or expired credential gets none.
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { parse as parseYaml } from 'yaml';
import { turnCredential } from '../../src/http/room/ice-servers.js';
import { runtimeFiles } from '../../src/ops/runtime-files.js';
import { type Tap } from '../helpers/api.js';
import { appFor } from '../helpers/app.js';
import { openBrowser } from '../helpers/browser.js';
import { freePort } from '../helpers/net.js';
import { runtimeSettings } from '../helpers/runtime.js';
import { createRoom, moderator } from '../helpers/waiting.js';

const turnserver = '/usr/bin/turnserver';
const secret = 'turn-secret-for-the-relay-test-0123456789';
type Server = { urls: string[]; username?: string; credential?: string };

t.setTimeout(120_000);

/** The compose `turn` service's shell command, as compose hands it to the container (`$$` → `$`). */
function composeTurnCommand(t: Tap): string {
  const out = mkdtempSync(join(tmpdir(), 'meet-turn-'));
  t.teardown(() => rmSync(out, { recursive: true, force: true }));
  const files = runtimeFiles(runtimeSettings({ runtime: 'container' }), out);
  const compose = parseYaml(files.find((f) => f.path.endsWith('compose.yaml'))!.content) as {
    services: { turn: { command: string[] } };
  };
  return compose.services.turn.command[0]!.replaceAll('$$', '$');
}

/** Runs the command under sh on loopback ports of this test (the only changes: addresses, port, pid and log files). */
function runTurn(t: Tap, command: string, port: number, env: Record<string, string>) {
  const dir = mkdtempSync(join(tmpdir(), 'meet-turn-run-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const local = command
    .replace('--listening-port=3478', `--listening-port=${port}`)
    .replace(
      'exec turnserver',
      `exec turnserver --listening-ip=127.0.0.1 --relay-ip=127.0.0.1 --pidfile=${dir}/turn.pid --log-file=stdout --simple-log --no-tls --no-dtls`,
    );
  const child = spawn('sh', ['-c', local], {
    env: { PATH: process.env.PATH ?? '', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
  t.teardown(() => void child.kill('SIGKILL'));
  return { exited, output: () => output };
}

const skip = existsSync(turnserver) ? false : `${turnserver} is missing (Debian package coturn; .ci/run installs it)`;

t.test('the compose turn service refuses to start without SERVICE_TURN_SECRET', { skip }, async (t) => {
  const turn = runTurn(t, composeTurnCommand(t), await freePort(), {});
  t.equal(await turn.exited, 1, 'exit code 1');
  t.match(turn.output(), /SERVICE_TURN_SECRET is not set in the env file/, 'and says why');
});

t.test(
  'Chromium is allocated a relay on coturn with the daemon credential, not with a forged or expired one',
  { skip },
  async (t) => {
    const port = await freePort();
    const turn = runTurn(t, composeTurnCommand(t), port, { SERVICE_TURN_SECRET: secret });
    const d = await appFor(t, {
      env: { SERVICE_ICE_SERVERS: `turn:127.0.0.1:${port}?transport=udp`, SERVICE_TURN_SECRET: secret },
    });
    await createRoom(t, d, { room_id: 'relay', name: 'Relay', waiting_room: 'off' });
    const mod = await moderator(d, 'relay');
    const given = mod.result.body.ice_servers as Server[];
    t.equal(given.length, 1, 'one TURN entry, with her credential');

    const browser = await openBrowser(t);
    const { page } = await browser.newPage('relay');
    /** The candidate types an ICE gathering limited to relays yields with these servers. */
    const relayCandidates = (servers: Server[]) =>
      page.evaluate(async (iceServers) => {
        const pc = new RTCPeerConnection({ iceServers, iceTransportPolicy: 'relay' });
        pc.createDataChannel('probe');
        const types: string[] = [];
        const done = new Promise<void>((resolve) => {
          pc.onicecandidate = (event) => (event.candidate ? types.push(event.candidate.type ?? '?') : resolve());
          setTimeout(resolve, 8000);
        });
        await pc.setLocalDescription(await pc.createOffer());
        await done;
        pc.close();
        return types;
      }, servers);

    // coturn takes a moment to open its listener: the first allocation is retried.
    let granted: string[] = [];
    for (let attempt = 0; attempt < 10 && granted.length === 0; attempt++) granted = await relayCandidates(given);
    t.ok(
      granted.includes('relay'),
      `a relay candidate with the daemon's credential (coturn said: ${turn.output().slice(-300)})`,
    );

    const forged = [{ ...given[0]!, credential: turnCredential('another-secret', 'x', 2_000_000_000).credential }];
    t.same(await relayCandidates(forged), [], 'a credential signed with another secret: no relay');
    const expired = [
      { urls: given[0]!.urls, ...turnCredential(secret, 'someone', Math.floor(Date.now() / 1000) - 60) },
    ];
    t.same(await relayCandidates(expired), [], 'a correctly signed credential past its expiry: no relay');
  },
);
