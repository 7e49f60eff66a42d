// An operator reads the daemon's first lines: a runtime warning there (a deprecated option of a
// library, an experimental API) looks like a fault of the install. Both listeners start clean.
import { spawn } from 'node:child_process';
import t from 'tap';
import { meetctl, tempDataDir } from '../helpers/daemon.js';

t.test('meetctl serve starts without a runtime warning on stderr', async (t) => {
  const child = spawn(process.execPath, [meetctl, 'serve'], {
    env: { PATH: process.env.PATH ?? '', SERVICE_DATA_DIR: tempDataDir(), SERVICE_HTTP_ADDR: '127.0.0.1:0' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  t.teardown(() => void child.kill('SIGKILL'));
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
  await new Promise<void>((resolve, reject) => {
    let stdout = '';
    child.stdout.on('data', (chunk: Buffer) => {
      stdout += chunk.toString();
      if (stdout.includes('engine listening')) resolve();
    });
    void exited.then((code) => reject(new Error(`daemon exited (${code}) before listening:\n${stdout}\n${stderr}`)));
  });
  child.kill('SIGTERM');
  t.equal(await exited, 0, 'it stops cleanly');
  t.notMatch(stderr, /Warning|FSTDEP/, 'no warning was printed');
  t.equal(stderr, '', 'stderr stayed empty');
});
