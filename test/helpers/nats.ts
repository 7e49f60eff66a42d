// A throwaway nats-server for the cluster tests (issue 35): the Debian package's binary on a free
// port of 127.0.0.1, killed when the test ends. Where it is absent, `natsTest` reports the test
// as skipped, by name, as postgresTest does for PostgreSQL.
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { connect } from 'node:net';
import t, { type Test } from 'tap';
import { postgresSkip } from './postgres.js';
import { freePort, until } from './net.js';

export const natsServerBin = '/usr/sbin/nats-server';

export interface NatsServer {
  readonly port: number;
  readonly url: string;
  /** kill -9 of the server (a NATS outage). */
  kill(): Promise<void>;
  /** Starts it again on the same port. */
  restart(): Promise<void>;
}

const accepts = (port: number) =>
  new Promise<boolean>((resolve) => {
    const socket = connect(port, '127.0.0.1');
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });

/** Starts nats-server on a free port, killed at `t`'s teardown. */
export async function startNats(t: Test): Promise<NatsServer> {
  const port = await freePort();
  let child: ChildProcess | null = null;
  const start = async () => {
    child = spawn(natsServerBin, ['-a', '127.0.0.1', '-p', String(port)], { stdio: 'ignore' });
    await until(`nats-server on port ${port}`, () => accepts(port), 15_000, 100);
  };
  const kill = async () => {
    const running = child;
    child = null;
    if (!running || running.exitCode !== null || running.signalCode !== null) return;
    const exited = new Promise((resolve) => running.once('exit', resolve));
    running.kill('SIGKILL');
    await exited;
  };
  t.teardown(kill);
  await start();
  return { port, url: `nats://127.0.0.1:${port}`, kill, restart: start };
}

/** A test that needs nats-server and PostgreSQL: skipped by name where either is absent. */
export function clusterTest(name: string, fn: (t: Test) => Promise<void>): void {
  if (!existsSync(natsServerBin))
    t.test(name, { skip: `nats-server is not installed (${natsServerBin}, Debian package nats-server)` }, () => {});
  else if (postgresSkip() !== null) t.test(name, { skip: postgresSkip()! }, () => {});
  else t.test(name, fn);
}
