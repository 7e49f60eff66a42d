import { input } from '@inquirer/prompts';
import { InvalidValue } from '../config/parsers.js';
import { settings, type SettingKey } from '../config/settings.js';
import type { InstallRow } from '../ops/compat-install.js';
import { givenValue, oneLinePublicKey, type GivenSource } from '../ops/given-values.js';
import { listenerKeys } from '../ops/listen-addresses.js';
import { attributeOf } from './config-options.js';
import { CliError } from './errors.js';
import type { InstallContext } from './install-context.js';
import type { CliIo } from './io.js';
import { mayPrompt, unansweredError } from './ui.js';

/**
 * The env-file values `meetctl install` decides for the service itself rather than for the
 * module: the public address (a row with `ask`: given, kept, or asked on a terminal) and the
 * licence authority's key in force (a row with `recordInForce`). Where each value comes from
 * follows ops/given-values.ts, as the listen addresses do.
 */

/** Values asked on a terminal are text (an address): a row whose parser gives anything else is a mistake in the table. */
function asText(env: string, value: unknown): string {
  if (typeof value !== 'string') throw new Error(`${env}: install asks for text values only`);
  return value;
}

/** Each value asked on a terminal (a row with `ask`) that nothing gives: the flag, the environment, an earlier install, room-defaults.toml. */
function unanswered(
  rows: readonly InstallRow[],
  options: Record<string, unknown>,
  context: InstallContext,
  io: CliIo,
): InstallRow[] {
  return rows.filter((row) => row.install.ask && givenOf(row, options, context, io) === null);
}

function givenOf(row: InstallRow, options: Record<string, unknown>, context: InstallContext, io: CliIo) {
  const flag = row.flag === null ? undefined : options[attributeOf(row.flag)];
  try {
    return givenValue(row.key, {
      flag: typeof flag === 'string' ? flag : undefined,
      environment: io.env,
      existingEnvValues: context.existingEnvValues,
      existingRoomDefaults: context.existingRoomDefaults,
    });
  } catch (err) {
    if (!(err instanceof InvalidValue)) throw err;
    throw new CliError(
      'config',
      `${row.flag ?? row.env} ${err.message}`,
      'nothing was written; fix the value and run install again',
    );
  }
}

/** Asks what nothing gave; without a terminal or with --yes, the first unanswered value is a usage error naming its flag. */
export async function askValues(
  rows: readonly InstallRow[],
  options: Record<string, unknown>,
  context: InstallContext,
  io: CliIo,
): Promise<Map<string, string>> {
  const answers = new Map<string, string>();
  for (const row of unanswered(rows, options, context, io)) {
    const question = row.install.ask!.question;
    if (!mayPrompt(io, options)) throw unansweredError(row.flag ?? row.env, question);
    const parse = settings[row.key].parse;
    try {
      const answer = await input(
        {
          message: question,
          validate: (value) => {
            try {
              parse(value);
              return true;
            } catch (err) {
              return err instanceof InvalidValue ? `${row.env} ${err.message}` : String(err);
            }
          },
        },
        { output: process.stderr },
      );
      answers.set(row.env, asText(row.env, parse(answer)));
    } catch (err) {
      if ((err as Error).name === 'ExitPromptError')
        throw new CliError('refused', 'install cancelled at the question; nothing was written');
      throw err;
    }
  }
  return answers;
}

type ServiceSource = GivenSource | 'answered';

/** An env-file value install decided for the service itself (not the module's secrets): the public address, the licence authority's key. */
export interface ServiceValue {
  readonly env: string;
  /** The env line's value; null: none written (room-defaults.toml names it, or nothing is in force). */
  readonly value: string | null;
  /** What the report shows. */
  readonly shown: string;
  readonly source: ServiceSource;
}

export function serviceValuesOf(
  rows: readonly InstallRow[],
  options: Record<string, unknown>,
  context: InstallContext,
  io: CliIo,
  answers: ReadonlyMap<string, string>,
): ServiceValue[] {
  const out: ServiceValue[] = [];
  for (const row of rows) {
    if (row.install.ask) {
      const given = givenOf(row, options, context, io);
      const answer = answers.get(row.env);
      if (given === null) {
        // Asked before the lock; an install that finished meanwhile has not removed the need.
        if (answer === undefined) throw unansweredError(row.flag ?? row.env, row.install.ask.question);
        out.push({ env: row.env, value: answer, shown: answer, source: 'answered' });
        continue;
      }
      // An earlier install's line is kept byte for byte; a new value is written as the parser normalises it.
      const value =
        given.value === null
          ? null
          : given.source === 'kept'
            ? given.value
            : asText(row.env, settings[row.key].parse(given.value));
      out.push({ env: row.env, value, shown: asText(row.env, context.config[row.key]), source: given.source });
    } else if (row.install.recordInForce) {
      const given = givenOf(row, options, context, io);
      if (given === null) continue;
      const inForce = context.config[row.key];
      // The only such row is the licence authority's key: verified with now, so the daemon must see the same.
      const value =
        given.source === 'environment' && typeof inForce === 'string' ? oneLinePublicKey(inForce) : given.value;
      out.push({
        env: row.env,
        value,
        shown: given.source === 'room-defaults' ? 'room-defaults.toml' : 'recorded',
        source: given.source,
      });
    }
  }
  return out;
}

/**
 * The settings install takes as flags and writes to the env file as given (logging, proxies,
 * media, ...): every flag of the table except the module's own rows, the listeners and the
 * paths, which install decides itself. A flag given to install must reach the daemon systemd
 * starts from that file, or the operator would have to repeat it by hand.
 */
export function asGivenKeys(rows: readonly InstallRow[]): SettingKey[] {
  const decided = new Set<SettingKey>([
    ...rows.map((row) => row.key),
    ...listenerKeys,
    'dataDir',
    'configDir',
    'tenantsFile',
  ]);
  return (Object.keys(settings) as SettingKey[]).filter(
    (key) => settings[key].flag !== null && !settings[key].secret && !decided.has(key),
  );
}

/** The env lines of the flags among `asGivenKeys` that were given (already checked by the config's loader, which read them too). */
export function asGivenValues(keys: readonly SettingKey[], options: Record<string, unknown>): ServiceValue[] {
  return keys.flatMap((key) => {
    const row = settings[key];
    const given = options[attributeOf(row.flag!)];
    if (typeof given !== 'string' || given.trim() === '') return [];
    return [{ env: row.env, value: given.trim(), shown: given.trim(), source: 'flag' as const }];
  });
}
