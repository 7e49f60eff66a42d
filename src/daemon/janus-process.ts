import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type AddressInfo } from 'node:net';
import { availableParallelism } from 'node:os';
import path from 'node:path';
import { janusConfigFiles } from '../media/janus/janus-config.js';
import { janusInfo, type JanusEndpoint } from '../media/janus/janus-session.js';
import { giveToDirectoryOwner, makeDirectory } from '../platform/file-owner.js';

export interface JanusProcessOptions {
  /** The program (`SERVICE_JANUS_BIN`). */
  readonly bin: string;
  /** The folder its generated configuration is written to (replaced at every start). */
  readonly configDir: string;
  /** The loopback port of its HTTP API; 0: a free one, chosen once and kept across restarts. */
  readonly httpPort?: number;
  readonly rtpPorts: { readonly min: number; readonly max: number };
  readonly publicIp: string | null;
  readonly sessionTimeoutSecs?: number;
  /** How long a start may take before it counts as failed. */
  readonly startTimeoutMs?: number;
  /**
   * Its api_secret and VideoRoom admin_key; random for the supervisor's life when not given. Given
   * where several Janus servers form one SERVICE_JANUS_URLS pool, which shares one pair.
   */
  readonly secrets?: { readonly apiSecret: string; readonly roomAdminKey: string };
  readonly log: {
    info(obj: object, msg: string): void;
    warn(obj: object, msg: string): void;
    error(obj: object, msg: string): void;
  };
}

export type JanusState = 'starting' | 'up' | 'restarting' | 'stopped';

const backoffMs = [500, 1000, 2000, 5000, 10_000, 30_000];

async function freeLoopbackPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

const secret = () => randomBytes(24).toString('base64url');

/** util-linux's setpriv (Debian installs it with the base system). */
const setpriv = '/usr/bin/setpriv';

/**
 * The command run so that the kernel kills Janus when the daemon dies, SIGKILL included: a
 * daemon killed outside systemd's control group would otherwise leave its Janus running.
 * setpriv sets the parent-death signal and then becomes Janus (exec: same pid). Without setpriv,
 * or for a program that does not exist (its start error stays spawn's own), Janus runs as given.
 */
export function withParentDeathSignal(command: readonly string[]): readonly string[] {
  return existsSync(setpriv) && existsSync(command[0]!) ? [setpriv, '--pdeathsig', 'KILL', '--', ...command] : command;
}

/**
 * The daemon's own Janus: started with a configuration generated for it, watched, restarted
 * with growing pauses when it dies, stopped with the daemon. The API secret and the rooms'
 * admin key are random for the life of this supervisor and never logged. `onRestarted` runs
 * after a restart answers, so the owner can rebuild the rooms of meetings in progress.
 */
export class JanusProcess {
  private child: ChildProcess | null = null;
  private current: JanusState = 'stopped';
  private failures = 0;
  /** Restarts since the start; unlike `failures` never set back, so the metrics' counter only rises. */
  private restartCount = 0;
  private restartTimer: NodeJS.Timeout | null = null;
  private port = 0;
  private readonly restartedListeners: (() => void)[] = [];
  private readonly apiSecret: string;
  readonly roomAdminKey: string;
  /** The last lines Janus printed, for the log when it fails. */
  private tail: string[] = [];

  constructor(private readonly options: JanusProcessOptions) {
    this.apiSecret = options.secrets?.apiSecret ?? secret();
    this.roomAdminKey = options.secrets?.roomAdminKey ?? secret();
  }

  get state(): JanusState {
    return this.current;
  }

  /** How often Janus exited (or failed to come back) and a restart was scheduled. */
  get restarts(): number {
    return this.restartCount;
  }

  get pid(): number | null {
    return this.child?.pid ?? null;
  }

  get endpoint(): JanusEndpoint {
    return { url: `http://127.0.0.1:${this.port}/janus`, apiSecret: this.apiSecret };
  }

  onRestarted(listener: () => void): void {
    this.restartedListeners.push(listener);
  }

  /** Starts Janus and resolves once it answers; rejects (and leaves nothing running) if it does not. */
  async start(): Promise<void> {
    this.port = this.options.httpPort || (await freeLoopbackPort());
    this.current = 'starting';
    try {
      await this.launch();
    } catch (err) {
      this.current = 'stopped';
      this.killChild();
      throw err;
    }
    this.current = 'up';
  }

  async stop(): Promise<void> {
    this.current = 'stopped';
    if (this.restartTimer) clearTimeout(this.restartTimer);
    const child = this.child;
    if (!child || child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
    child.kill('SIGTERM');
    const forced = setTimeout(() => child.kill('SIGKILL'), 3000);
    await exited;
    clearTimeout(forced);
  }

  private async launch(): Promise<void> {
    const { configDir } = this.options;
    rmSync(configDir, { recursive: true, force: true });
    // Owned as the data directory is: a root-owned folder left by a `serve` run as root would
    // stop the service's own user from replacing it, and the service would fall back to the mesh.
    makeDirectory(configDir, 0o700);
    const files = janusConfigFiles({
      configDir,
      httpPort: this.port,
      apiSecret: this.apiSecret,
      roomAdminKey: this.roomAdminKey,
      rtpPorts: this.options.rtpPorts,
      publicIp: this.options.publicIp,
      sessionTimeoutSecs: this.options.sessionTimeoutSecs ?? 60,
      eventLoops: availableParallelism(),
    });
    for (const [name, text] of Object.entries(files)) {
      const file = path.join(configDir, name);
      writeFileSync(file, text, { mode: 0o600 });
      giveToDirectoryOwner(file);
    }
    this.tail = [];
    const [file, ...args] = withParentDeathSignal([
      this.options.bin,
      '-F',
      configDir,
      '-C',
      path.join(configDir, 'janus.jcfg'),
      '-o',
      '-d',
      '3',
    ]);
    const child = spawn(file!, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    this.child = child;
    const keep = (chunk: Buffer) => {
      this.tail = [...this.tail, ...chunk.toString('utf8').split('\n').filter(Boolean)].slice(-20);
    };
    child.stdout?.on('data', keep);
    child.stderr?.on('data', keep);
    let exited = false;
    const spawnError = new Promise<never>((_, reject) => {
      child.once('error', (err) => {
        // No program to wait for: the start fails now, not at the end of the start time.
        exited = true;
        reject(new Error(`Janus could not be started (${this.options.bin}): ${err.message}`));
      });
      child.once('exit', (code, signal) => {
        exited = true;
        reject(
          new Error(`Janus exited while starting (${signal ?? `code ${code}`}): ${this.tail.slice(-3).join(' | ')}`),
        );
      });
    });
    spawnError.catch(() => {});
    await Promise.race([spawnError, this.waitAnswering(() => exited)]);
    child.once('exit', (code, signal) => this.exited(child, code, signal));
  }

  private async waitAnswering(exited: () => boolean): Promise<void> {
    const deadline = Date.now() + (this.options.startTimeoutMs ?? 10_000);
    while (!exited()) {
      try {
        await janusInfo({ ...this.endpoint, timeoutMs: 1000 });
        return;
      } catch {
        if (Date.now() > deadline)
          throw new Error(`Janus did not answer on 127.0.0.1:${this.port} within the start time`);
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    }
  }

  private exited(child: ChildProcess, code: number | null, signal: string | null): void {
    if (child !== this.child || this.current === 'stopped') return;
    const pause = backoffMs[Math.min(this.failures, backoffMs.length - 1)] ?? 30_000;
    this.failures += 1;
    this.restartCount += 1;
    this.current = 'restarting';
    this.options.log.error(
      { code, signal, restartInMs: pause, lastLines: this.tail.slice(-5) },
      'janus exited; restarting it',
    );
    this.restartTimer = setTimeout(() => void this.restart(), pause);
    this.restartTimer.unref();
  }

  private async restart(): Promise<void> {
    if (this.current === 'stopped') return;
    try {
      await this.launch();
    } catch (err) {
      this.killChild();
      this.options.log.error({ err }, 'janus failed to restart');
      if (this.child) this.exited(this.child, null, null);
      return;
    }
    // stop() may have run while the new process started.
    if (this.stopRequested()) {
      this.killChild();
      return;
    }
    this.current = 'up';
    this.options.log.info({ janusPid: this.child?.pid, restarts: this.failures }, 'janus is up again');
    // A Janus that stays up a minute starts the pauses from the shortest again.
    setTimeout(() => {
      if (this.current === 'up') this.failures = 0;
    }, 60_000).unref();
    for (const listener of this.restartedListeners) listener();
  }

  private stopRequested(): boolean {
    return this.current === 'stopped';
  }

  /** For an exit that cannot wait: SIGKILL now, nothing restarted. */
  kill(): void {
    this.current = 'stopped';
    this.killChild();
  }

  private killChild(): void {
    const child = this.child;
    if (child && child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  }
}
