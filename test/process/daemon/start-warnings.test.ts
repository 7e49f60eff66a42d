// An operator reads the daemon's first lines: a runtime warning there (a deprecated option of a
// library, an experimental API) looks like a fault of the install. Both listeners start clean.
import { spawn } from 'node:child_process';
import t from 'tap';
import { meetctl, tempDataDir } from '../../helpers/daemon.js';
import { installTestLicence } from '../../helpers/licence.js';

/** Starts `meetctl serve`, waits for `ready` in its log, stops it, and returns its exit code and stderr. */
async function startAndStop(
  env: Record<string, string>,
  ready: string,
): Promise<{ code: number | null; stderr: string }> {
  const child = spawn(process.execPath, [meetctl, 'serve'], {
    env: { PATH: process.env.PATH ?? '', ...env },
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
      if (stdout.includes(ready)) resolve();
    });
    void exited.then((code) => reject(new Error(`daemon exited (${code}) before "${ready}":\n${stdout}\n${stderr}`)));
  });
  child.kill('SIGTERM');
  return { code: await exited, stderr };
}

t.test('meetctl serve starts without a runtime warning on stderr', async (t) => {
  const { code, stderr } = await startAndStop(
    { SERVICE_DATA_DIR: tempDataDir(), SERVICE_HTTP_ADDR: '127.0.0.1:0' },
    'engine listening',
  );
  t.equal(code, 0, 'it stops cleanly');
  t.notMatch(stderr, /Warning|FSTDEP/, 'no warning was printed');
  t.equal(stderr, '', 'stderr stayed empty');
});

t.test('with the compat listener too', async (t) => {
  const dataDir = tempDataDir();
  const licence = await installTestLicence(dataDir);
  const { code, stderr } = await startAndStop(
    {
      SERVICE_DATA_DIR: dataDir,
      SERVICE_HTTP_ADDR: '127.0.0.1:0',
      COMPAT_HTTP_ADDR: '127.0.0.1:0',
      COMPAT_API_SHARED_SECRET: 'a-shared-secret-of-thirty-two-chars!',
      ...licence,
    },
    'compat listening',
  );
  t.equal(code, 0, 'it stops cleanly');
  // Fastify's router options at the top level printed FSTDEP022 here once.
  t.notMatch(stderr, /Warning|FSTDEP/, 'no warning was printed');
  t.equal(stderr, '', 'stderr stayed empty');
});
