// /readyz when the data directory is full: the daemon (`meetctl serve`, its own process) runs in
// a mount namespace whose private tmpfs is its data directory, which only a process can have.
// The other readiness answers are checked in-process in health.test.ts.
import t from 'tap';
import { setTimeout as sleep } from 'node:timers/promises';
import { readinessProbeReuseMs } from '../../../src/http/app.js';
import { daemonFor, dataDirFor } from '../../helpers/api.js';
import { canMountPrivateTmpfs, inDaemonNamespace, privateTmpfsLauncher } from '../../helpers/private-tmpfs.js';

async function readyz(daemon: { readonly url: string }): Promise<number> {
  const response = await fetch(`${daemon.url}/readyz`, { signal: AbortSignal.timeout(10_000) });
  await response.arrayBuffer();
  return response.status;
}

t.test(
  '/readyz answers 503 when the data directory is full',
  { skip: !canMountPrivateTmpfs() && 'needs root and unshare to give the daemon a filesystem of its own' },
  async (t) => {
    const dataDir = dataDirFor(t);
    // The data directory is a private tmpfs (seen only by the daemon) that goes read-only under it.
    const daemon = await daemonFor(t, {
      dataDir,
      launcher: privateTmpfsLauncher(dataDir, '8m'),
    });
    t.equal(await readyz(daemon), 200);
    const inNamespace = (script: string) => inDaemonNamespace(daemon, script);
    inNamespace(`cat /dev/zero > "${dataDir}/filler" 2>/dev/null; true`);
    const states: number[] = [];
    const pastReuse = () => sleep(readinessProbeReuseMs + 100);
    // Past the probe's reuse each time: a fresh write is refused every time, not once.
    for (let i = 0; i < 3; i++) {
      await pastReuse();
      states.push(await readyz(daemon));
    }
    t.comment(inNamespace(`ls -la "${dataDir}"; df "${dataDir}"`));
    t.same(states, [503, 503, 503]);
    inNamespace(`rm -f "${dataDir}/filler"`);
    await pastReuse();
    t.equal(await readyz(daemon), 200, 'ready again once there is room');
  },
);
