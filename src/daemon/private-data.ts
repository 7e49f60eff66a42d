import { existsSync } from 'node:fs';
import { relative, isAbsolute } from 'node:path';
import type { Logger } from 'pino';
import type { Config } from '../config/settings.js';
import { narrowTree, type Narrowed } from '../platform/private-files.js';

/** Lines beyond this many become one count, so a large tree cannot flood the log at start. */
const namedAtMost = 20;

const octal = (mode: number) => `0${mode.toString(8)}`;

/**
 * At start, before anything opens them: the data directory (and the meeting API's, when it
 * lives elsewhere) 0700, everything in it 0700/0600. Files an older version or a loose umask
 * left readable by others are narrowed, and each is logged, so the operator learns that they
 * were exposed until now.
 */
export function narrowDataModes(config: Pick<Config, 'dataDir' | 'compatApiDataDir'>, log: Logger): void {
  const roots = [config.dataDir];
  const inside = relative(config.dataDir, config.compatApiDataDir);
  // Elsewhere, it is looked at only once the module made it.
  if ((inside.startsWith('..') || isAbsolute(inside)) && existsSync(config.compatApiDataDir))
    roots.push(config.compatApiDataDir);
  const narrowed: Narrowed[] = roots.flatMap((root) => narrowTree(root));
  for (const item of narrowed.slice(0, namedAtMost)) {
    if (item.refused !== undefined) {
      log.warn(
        { path: item.path, was: octal(item.was), refused: item.refused },
        `${item.path} is open to other users (${octal(item.was)}) and its mode cannot be changed by this user (${item.refused}): chown it to the service's user`,
      );
      continue;
    }
    log.warn(
      { path: item.path, was: octal(item.was), now: octal(item.now) },
      `narrowed the mode of ${item.path} from ${octal(item.was)} to ${octal(item.now)}: it was open to other users`,
    );
  }
  if (narrowed.length > namedAtMost)
    log.warn(
      { count: narrowed.length - namedAtMost },
      `narrowed the modes of ${narrowed.length - namedAtMost} more paths in the data directory`,
    );
}
