import { readFile } from 'node:fs/promises';
import type { Command } from 'commander';
import { accountLinkUrl } from '../platform/listening-url.js';
import type { Config } from '../config/settings.js';
import { CliError } from './errors.js';
import type { CliIo } from './io.js';
import { dataOptions, withServices } from './token.js';

/** An account as meetctl shows it: never its password hash. */
interface AccountLine {
  readonly email: string;
  readonly name: string;
  readonly admin: boolean;
  readonly disabled: boolean;
  readonly source: string;
  readonly password_set: boolean;
  readonly created_at: string;
}

const lineOf = (account: {
  email: string;
  name: string;
  admin: boolean;
  disabled: boolean;
  source: string;
  passwordHash: string | null;
  createdAt: string;
}): AccountLine => ({
  email: account.email,
  name: account.name,
  admin: account.admin,
  disabled: account.disabled,
  source: account.source,
  password_set: account.passwordHash !== null,
  created_at: account.createdAt,
});

/** Where the one-time link leads: the public address people use (SERVICE_PUBLIC_URL, else COMPAT_FRONTEND_URL's default). */
const linkOf = (config: Config, token: string) => accountLinkUrl(config.publicUrl ?? config.compatFrontendUrl, token);

/** The password of --password-file: the file's text (or standard input's for `-`) without its one final line break. */
async function passwordFrom(path: string, io: CliIo): Promise<string> {
  let text: string;
  if (path === '-') {
    if (!io.readStdin) throw new CliError('usage', '--password-file -: standard input cannot be read here');
    text = await io.readStdin();
  } else {
    try {
      text = await readFile(path, 'utf8');
    } catch (err) {
      throw new CliError(
        'refused',
        `--password-file ${path}: ${(err as Error).message}`,
        'name a readable file, or - for standard input',
      );
    }
  }
  return text.replace(/\r?\n$/, '');
}

function printLink(io: CliIo, email: string, link: string, expiresAt: string): void {
  io.out(`${link}\n`);
  io.err(
    `One-time link for ${email}: it sets the password once and is valid until ${expiresAt} (72 h). Send it to that person only.\n`,
  );
}

function table(rows: readonly AccountLine[]): string {
  const lines = [
    ['EMAIL', 'NAME', 'ROLE', 'STATE', 'SOURCE'],
    ...rows.map((r) => [
      r.email,
      r.name,
      r.admin ? 'admin' : 'organiser',
      r.disabled ? 'disabled' : r.password_set || r.source !== 'local' ? 'active' : 'link sent',
      r.source,
    ]),
  ];
  const widths = [0, 1, 2, 3].map((i) => Math.max(...lines.map((l) => l[i]!.length)));
  return lines.map((l) => l.map((cell, i) => (i < 4 ? cell.padEnd(widths[i]!) : cell)).join('  ')).join('\n') + '\n';
}

export function userCommands(program: Command, io: CliIo): void {
  const user = program
    .command('user')
    .description("manage the organisers' accounts (local accounts sign in at /signin)");

  const add = user
    .command('add')
    .description('add an account and print its one-time link (valid 72 h) to set the password')
    .argument('<email>', 'the email the person signs in with')
    .option('--name <name>', "the name shown for the account (default: the email's part before @)")
    .option('--admin', 'an admin account: sees and changes every room')
    .option(
      '--password-file <path>',
      'set the password from this file (- for standard input) instead of printing a link',
    )
    .action(async (email: string, options: Record<string, unknown>) => {
      const passwordFile = options.passwordFile as string | undefined;
      const password = passwordFile === undefined ? null : await passwordFrom(passwordFile, io);
      await withServices(options, io, async (s, config) => {
        const added = await s.accounts.add({ email, name: options.name, admin: options.admin === true });
        if (password === null) {
          printLink(io, added.account.email, linkOf(config, added.token!), added.expiresAt!);
          return;
        }
        try {
          await s.accounts.setPassword(added.account.email, password);
        } catch (err) {
          // A refused password leaves no half-made account behind.
          await s.accounts.remove(added.account.email);
          throw err;
        }
        io.out(`added ${added.account.email}${options.admin === true ? ' (admin)' : ''}; the password is set\n`);
      });
    });
  dataOptions(add);

  const list = user
    .command('list')
    .description('list the accounts (never a password)')
    .option('--json', 'print JSON instead of a table')
    .action(async (options: Record<string, unknown>) => {
      const rows = await withServices(options, io, async (s) => (await s.accounts.list()).map(lineOf));
      io.out(options.json ? `${JSON.stringify(rows, null, 2)}\n` : table(rows));
    });
  dataOptions(list);

  const show = user
    .command('show')
    .description('show one account')
    .argument('<email>', 'the email of the account')
    .option('--json', 'print JSON')
    .action(async (email: string, options: Record<string, unknown>) => {
      const line = await withServices(options, io, async (s) => lineOf(await s.accounts.show(email)));
      io.out(
        options.json
          ? `${JSON.stringify(line, null, 2)}\n`
          : Object.entries(line)
              .map(([key, value]) => `${key}: ${String(value)}`)
              .join('\n') + '\n',
      );
    });
  dataOptions(show);

  const disable = user
    .command('disable')
    .description('disable an account: it cannot sign in, and its sessions end at once')
    .argument('<email>', 'the email of the account')
    .option('--enable', 'enable it again instead')
    .action(async (email: string, options: Record<string, unknown>) => {
      const account = await withServices(options, io, (s) => s.accounts.disable(email, options.enable !== true));
      io.out(`${account.disabled ? 'disabled' : 'enabled'} ${account.email}\n`);
    });
  dataOptions(disable);

  const remove = user
    .command('remove')
    .description('remove an account with its sessions; its rooms stay, shown to admins')
    .argument('<email>', 'the email of the account')
    .action(async (email: string, options: Record<string, unknown>) => {
      await withServices(options, io, (s) => s.accounts.remove(email));
      io.out(`removed ${email.trim().toLowerCase()}\n`);
    });
  dataOptions(remove);

  const reset = user
    .command('reset')
    .description('clear the password, end every session and print a new one-time link (valid 72 h)')
    .argument('<email>', 'the email of the account')
    .action(async (email: string, options: Record<string, unknown>) => {
      await withServices(options, io, async (s, config) => {
        const issued = await s.accounts.reset(email);
        printLink(io, issued.account.email, linkOf(config, issued.token), issued.expiresAt);
      });
    });
  dataOptions(reset);
}
