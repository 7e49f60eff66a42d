import type { Test } from 'tap';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { JanusProcess, type JanusProcessOptions } from '../../src/daemon/janus-process.js';
import type { JanusRoomsOptions } from '../../src/media/janus/janus-rooms.js';

/** Where Debian's `janus` package puts the program (`.ci/run` installs it when missing). */
export const janusBin = process.env['SERVICE_JANUS_BIN'] ?? '/usr/bin/janus';

/** Why a real-Janus test cannot run here, or null when it can. */
export const janusMissing: string | null = existsSync(janusBin)
  ? null
  : `${janusBin} is not installed (Debian package janus)`;

export interface LogLine {
  readonly level: 'info' | 'warn' | 'error';
  readonly obj: object;
  readonly msg: string;
}

/** A private Janus on loopback for one test, in a temporary folder; stopped and removed at teardown. */
export async function janusFor(
  t: Test,
  rtpBase = 42_000,
  secrets?: JanusProcessOptions['secrets'],
): Promise<{ janus: JanusProcess; lines: LogLine[] }> {
  const dir = mkdtempSync(path.join(tmpdir(), 'janus-test-'));
  const lines: LogLine[] = [];
  const log = {
    info: (obj: object, msg: string) => lines.push({ level: 'info', obj, msg }),
    warn: (obj: object, msg: string) => lines.push({ level: 'warn', obj, msg }),
    error: (obj: object, msg: string) => lines.push({ level: 'error', obj, msg }),
  };
  const janus = new JanusProcess({
    bin: janusBin,
    configDir: path.join(dir, 'janus'),
    rtpPorts: { min: rtpBase, max: rtpBase + 200 },
    publicIp: null,
    log,
    ...(secrets ? { secrets } : {}),
  });
  t.teardown(async () => {
    await janus.stop();
    rmSync(dir, { recursive: true, force: true });
  });
  await janus.start();
  return { janus, lines };
}

/** Room options of a test's JanusRooms: ten publishers, secrets and pins that count up, warnings to `warn`. */
export function testRoomOptions(janus: JanusProcess, warn: JanusRoomsOptions['log']['warn']): JanusRoomsOptions {
  let n = 0;
  return {
    endpoint: () => janus.endpoint,
    adminKey: janus.roomAdminKey,
    publishers: 10,
    randomText: () => `random-${String(n++).padStart(10, '0')}`,
    log: { warn },
  };
}
