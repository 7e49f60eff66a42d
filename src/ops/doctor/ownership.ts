import { lstatSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { check, configMissing, fail, ok, reason, skip, warn } from './check.js';
import { findProgram, runProgram } from './programs.js';

/** Enough for a data directory (databases, keys, the Janus configuration) without walking a mistaken `/`. */
const maxPaths = 5000;

/** The user the unit runs the daemon as (`User=`), or null when it names none. */
export function unitUser(unitText: string): string | null {
  const line = /^\s*User\s*=\s*(\S+)\s*$/m.exec(unitText);
  return line ? line[1]! : null;
}

interface ServiceUser {
  /** How the lines name it: `meet (uid 998)`, or `uid 10001` when given as a number. */
  readonly label: string;
  readonly uid: number;
}

/** A user name or uid as `getent passwd` (NSS) knows it, else as /etc/passwd does; null when unknown. */
async function resolveUser(
  given: string,
  env: Readonly<Record<string, string | undefined>>,
): Promise<ServiceUser | null> {
  if (/^[0-9]+$/.test(given)) return { label: `uid ${given}`, uid: Number(given) };
  const getent = findProgram('getent', null, env);
  let line: string | undefined;
  if (getent !== null) {
    const found = await runProgram(getent, ['passwd', given], env, 10_000);
    line = found.code === 0 ? found.output.split('\n')[0] : undefined;
  } else {
    line = readFileSync('/etc/passwd', 'utf8')
      .split('\n')
      .find((l) => l.startsWith(`${given}:`));
  }
  const uid = line?.split(':')[2];
  return uid !== undefined && /^[0-9]+$/.test(uid) ? { label: `${given} (uid ${uid})`, uid: Number(uid) } : null;
}

interface Walk {
  readonly foreign: { path: string; uid: number }[];
  readonly unreadable: { path: string; code: string }[];
  seen: number;
}

/** Every path under `root` (root included; symbolic links are not followed) whose owner is not `uid`. */
function walk(root: string, uid: number, found: Walk): void {
  const stat = lstatSync(root, { throwIfNoEntry: false });
  if (stat === undefined || found.seen >= maxPaths) return;
  found.seen += 1;
  if (stat.uid !== uid) found.foreign.push({ path: root, uid: stat.uid });
  if (!stat.isDirectory()) return;
  let entries: string[];
  try {
    entries = readdirSync(root);
  } catch (err) {
    found.unreadable.push({ path: root, code: reason(err) });
    return;
  }
  for (const entry of entries) walk(join(root, entry), uid, found);
}

/**
 * Files the daemon and `meetctl` run as the service's user must open and replace: the data
 * directory (and the meeting API's, when apart), the configuration directory and the tenants
 * file. One of them left to root by a command run as root stops the module, Janus or `sudo -u
 * meet meetctl tenant` at the next start; this names them before that start.
 */
export const ownershipCheck = check('ownership', 'File owners', async (ctx) => {
  if (ctx.config === null) return configMissing;
  let given = ctx.serviceUser;
  let from = '--service-user';
  if (given === null) {
    let unitText: string;
    try {
      unitText = readFileSync(ctx.unitFile, 'utf8');
    } catch (err) {
      return skip(
        `no systemd unit to name the service's user (${ctx.unitFile}: ${reason(err)}); pass --service-user to check the owners`,
      );
    }
    given = unitUser(unitText);
    if (given === null) return skip(`${ctx.unitFile} names no User=: the daemon runs as root, which owns everything`);
    from = `User= of ${ctx.unitFile}`;
  }
  const user = await resolveUser(given, ctx.env);
  if (user === null)
    return fail(
      `the service's user ${given} (${from}) does not exist`,
      `create it (useradd --system --home-dir /nonexistent --shell /usr/sbin/nologin ${given})`,
    );
  const { dataDir, compatApiDataDir, tenantsFile } = ctx.config;
  const roots = [dataDir, compatApiDataDir, ctx.configDir, ...(tenantsFile ? [tenantsFile] : [])].map((p) =>
    resolve(p),
  );
  const unique = roots.filter(
    (root, i) => !roots.some((other, j) => j < i && (other === root || root.startsWith(`${other}/`))),
  );
  const found: Walk = { foreign: [], unreadable: [], seen: 0 };
  for (const root of unique) walk(root, user.uid, found);
  if (found.foreign.length > 0) {
    const shown = found.foreign
      .slice(0, 3)
      .map((f) => `${f.path} (uid ${f.uid})`)
      .join(', ');
    const more = found.foreign.length > 3 ? ` and ${found.foreign.length - 3} more` : '';
    const dirs = [
      ...new Set(
        found.foreign.map((f) => unique.find((r) => f.path === r || f.path.startsWith(`${r}/`)) ?? dirname(f.path)),
      ),
    ];
    return fail(
      `not owned by ${user.label}, the service's user (${from}): ${shown}${more}`,
      `chown -R ${given}:${given} ${dirs.join(' ')} (a meetctl command run as root keeps the owners it finds)`,
    );
  }
  if (found.unreadable.length > 0) {
    const first = found.unreadable[0]!;
    return warn(
      `cannot look into ${first.path} (${first.code}): its files were not checked`,
      "run meetctl doctor as root or as the service's user",
    );
  }
  return ok(`${found.seen} paths under ${unique.join(', ')} belong to ${user.label}, the service's user (${from})`);
});
