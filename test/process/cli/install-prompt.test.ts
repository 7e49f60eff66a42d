// The open-rooms question on a real terminal: util-linux `script` gives meetctl a
// pseudo-terminal, the test types the answer once the question is on the screen. With --yes
// the question is never asked, even on a terminal; Ctrl-C at the question writes nothing.
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import t from 'tap';
import type { Tap } from '../../helpers/api.js';
import { meetctl } from '../../helpers/daemon.js';
import { world, type World } from '../../helpers/install-world.js';
import { testServerKey } from '../../helpers/licence.js';
import { snapshot } from '../../helpers/tree.js';

const quote = (arg: string) => `'${arg.replace(/'/g, `'\\''`)}'`;

/** Runs install on a pseudo-terminal; `answer` is typed once `waitFor` appears (null: type nothing). */
function onTerminal(
  w: World,
  args: readonly string[],
  waitFor: RegExp | null,
  answer: string,
): Promise<{ code: number | null; screen: string }> {
  const command = [process.execPath, meetctl, 'install', 'compat', '--config-dir', w.etc, '--data-dir', w.data, ...args]
    .map(quote)
    .join(' ');
  const child = spawn('script', ['-qec', command, '/dev/null'], {
    env: { PATH: process.env.PATH ?? '', TERM: 'dumb', ...w.env },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let screen = '';
  let typed = false;
  const timer = setTimeout(() => child.kill('SIGKILL'), 60_000);
  child.stdout.on('data', (chunk: Buffer) => {
    screen += chunk.toString();
    if (!typed && waitFor !== null && waitFor.test(screen)) {
      typed = true;
      // Typed as a person would: the letter, then Enter (a carriage return on a raw terminal).
      for (const [i, ch] of [...answer].entries()) setTimeout(() => child.stdin.write(ch), 50 * (i + 1));
    }
  });
  child.stderr.on('data', (chunk: Buffer) => (screen += chunk.toString()));
  return new Promise((resolve) =>
    child.on('exit', (code) => {
      clearTimeout(timer);
      resolve({ code, screen });
    }),
  );
}

async function answered(t: Tap, answer: string, expected: string): Promise<void> {
  const w = world(t);
  const key = w.keyFile(await testServerKey());
  const result = await onTerminal(
    w,
    ['--key-file', key, '--public-url', 'https://meet.example.org'],
    /Allow open rooms \(arrivals without a token\)\?/,
    answer,
  );
  t.equal(result.code, 0, `exit 0:\n${result.screen}`);
  t.equal(
    w.envFile().COMPAT_JITSI_ALLOW_ANONYMOUS,
    expected,
    `answered ${JSON.stringify(answer)}: COMPAT_JITSI_ALLOW_ANONYMOUS=${expected}`,
  );
  // The answer is recorded: the next run on a terminal asks nothing and changes nothing.
  const before = snapshot(w.root);
  const again = await onTerminal(w, ['--key-file', key], null, '');
  t.equal(again.code, 0, again.screen);
  t.notMatch(again.screen, /Allow open rooms/, 'not asked again');
  t.same(snapshot(w.root), before, 'nothing changed');
}

t.test('answered yes on a terminal', (t) => answered(t, 'y\r', 'true'));
t.test('answered no on a terminal', (t) => answered(t, 'n\r', 'false'));

t.test('--yes on a terminal never asks: the flag is required', async (t) => {
  const w = world(t);
  const result = await onTerminal(w, ['--key-file', w.keyFile(await testServerKey()), '--yes'], null, '');
  t.equal(result.code, 64, result.screen);
  t.match(result.screen, /--open-rooms or --no-open-rooms is required without a terminal or with --yes/);
  t.same(snapshot(w.root), {}, 'nothing written');
});

t.test('Ctrl-C at the question writes nothing', async (t) => {
  const w = world(t);
  const result = await onTerminal(
    w,
    ['--key-file', w.keyFile(await testServerKey()), '--public-url', 'https://meet.example.org'],
    /Allow open rooms/,
    '\u0003',
  );
  t.equal(result.code, 1, result.screen);
  t.match(result.screen, /install cancelled at the question; nothing was written/);
  t.notOk(existsSync(w.etc), 'no config directory either');
  t.same(snapshot(w.root), {}, 'nothing written');
});

// Issue 29, point 1: the public address is asked the same way, checked as it is typed.
t.test('the public address is asked on a terminal and recorded, normalised', async (t) => {
  const w = world(t);
  const key = w.keyFile(await testServerKey());
  const result = await onTerminal(
    w,
    ['--key-file', key, '--no-open-rooms'],
    /Public address of the service/,
    'https://meet.example.org/\r',
  );
  t.equal(result.code, 0, `exit 0:\n${result.screen}`);
  t.equal(w.envFile().SERVICE_PUBLIC_URL, 'https://meet.example.org', 'the answer is written');
  const before = snapshot(w.root);
  const again = await onTerminal(w, ['--key-file', key], null, '');
  t.equal(again.code, 0, again.screen);
  t.notMatch(again.screen, /Public address of the service/, 'not asked again');
  t.same(snapshot(w.root), before, 'nothing changed');
});

t.test('--yes on a terminal never asks the public address: --public-url is required', async (t) => {
  const w = world(t);
  const result = await onTerminal(
    w,
    ['--key-file', w.keyFile(await testServerKey()), '--no-open-rooms', '--yes'],
    null,
    '',
  );
  t.equal(result.code, 64, result.screen);
  t.match(result.screen, /--public-url is required without a terminal or with --yes/);
  t.same(snapshot(w.root), {}, 'nothing written');
});
