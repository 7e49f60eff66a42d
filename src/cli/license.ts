import { createPrivateKey } from 'node:crypto';
import { existsSync, readFileSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { Command } from 'commander';
import { makeDirectory, writeFileAtomic } from '../platform/atomic-file.js';
import { installedLicence } from '../licence/installation.js';
import { licenceSummary } from '../licence/licence-status.js';
import { issueServerKey, licenceKeyPair } from '../licence/server-key.js';
import { CliError } from './errors.js';
import { addLocationOptions, installContext } from './install-context.js';
import type { CliIo } from './io.js';
import { paint } from './ui.js';

/** File names of `license keygen`; the public one is what SERVICE_LICENSE_PUBLIC_KEY=@path names. */
export const privateKeyFileName = 'licence.key';
export const publicKeyFileName = 'licence.pub';

/** A licence lasts at most this long: a key that never ends could not be withdrawn by letting it lapse. */
export const maxLicenceDays = 3660;

function keygen(options: { out?: string; force?: boolean }, io: CliIo): void {
  if (typeof options.out !== 'string' || options.out.trim() === '')
    throw new CliError('usage', '--out DIR is required (where the key pair is written)');
  const dir = resolve(options.out);
  if (existsSync(dir) && !statSync(dir).isDirectory())
    throw new CliError('config', `--out ${dir} exists and is not a directory`);
  const privateFile = join(dir, privateKeyFileName);
  const publicFile = join(dir, publicKeyFileName);
  const present = [privateFile, publicFile].filter((file) => existsSync(file));
  if (present.length > 0 && options.force !== true) {
    throw new CliError(
      'refused',
      `${present.join(' and ')} already exist${present.length === 1 ? 's' : ''}; a new pair would orphan every key issued with the old one`,
      'pass --force to replace them, or choose another --out',
    );
  }
  makeDirectory(dir, 0o700);
  const pair = licenceKeyPair();
  writeFileAtomic(privateFile, pair.privateKeyPem, 0o600);
  writeFileAtomic(publicFile, pair.publicKeyPem, 0o644);
  io.out(`private key: ${privateFile} (0600: keep it offline, never in a repository)\n`);
  io.out(`public key:  ${publicFile} (installations verify with SERVICE_LICENSE_PUBLIC_KEY=@${publicFile})\n`);
}

function parseDays(raw: unknown): number {
  const text = typeof raw === 'string' ? raw.trim() : '';
  if (!/^[0-9]+$/.test(text) || Number(text) < 1 || Number(text) > maxLicenceDays) {
    throw new CliError(
      'usage',
      `--days must be a whole number of days from 1 to ${maxLicenceDays} (got ${JSON.stringify(raw ?? null)})`,
    );
  }
  return Number(text);
}

function parseCustomer(raw: unknown): string {
  const customer = typeof raw === 'string' ? raw.trim() : '';
  if (customer === '') throw new CliError('usage', '--customer must name the customer (non-empty)');
  // The name is logged by every daemon that runs the key: no control or invisible characters to forge log lines with.
  if (/[\p{Cc}\p{Cf}\u2028\u2029]/u.test(customer))
    throw new CliError('usage', '--customer must not contain control or invisible characters');
  if (customer.length > 200) throw new CliError('usage', '--customer is longer than 200 characters');
  return customer;
}

function parseModules(raw: unknown): string[] {
  const modules = (typeof raw === 'string' ? raw : '')
    .split(',')
    .map((m) => m.trim())
    .filter((m) => m !== '');
  if (modules.length === 0)
    throw new CliError('usage', '--modules must list at least one module, e.g. --modules compat');
  for (const module of modules) {
    if (!/^[a-z][a-z0-9-]{0,31}$/.test(module))
      throw new CliError(
        'usage',
        `--modules: ${JSON.stringify(module)} is not a module name (lower-case letters, digits and -)`,
      );
  }
  return [...new Set(modules)];
}

function readPrivateKey(raw: unknown): string {
  if (typeof raw !== 'string' || raw.trim() === '')
    throw new CliError(
      'usage',
      "--private-key PATH is required (the authority's Ed25519 private key, from license keygen)",
    );
  let pem: string;
  try {
    if (statSync(raw).isDirectory()) throw new CliError('config', `--private-key ${raw} is a directory, not a file`);
    pem = readFileSync(raw, 'utf8');
  } catch (err) {
    if (err instanceof CliError) throw err;
    const code = (err as NodeJS.ErrnoException).code ?? String(err);
    throw new CliError(code === 'ENOENT' ? 'config' : 'environment', `--private-key ${raw} cannot be read (${code})`);
  }
  let type: string | undefined;
  try {
    type = createPrivateKey(pem).asymmetricKeyType;
  } catch {
    throw new CliError('config', `--private-key ${raw} is not a private key in PEM`);
  }
  if (type !== 'ed25519')
    throw new CliError(
      'config',
      `--private-key ${raw} is a ${type ?? 'unknown'} key; the licence authority signs with Ed25519 (license keygen makes one)`,
    );
  return pem;
}

async function issue(options: Record<string, unknown>, io: CliIo): Promise<void> {
  const customer = parseCustomer(options.customer);
  const modules = parseModules(options.modules);
  const days = parseDays(options.days);
  const pem = readPrivateKey(options.privateKey);
  // Standard output holds the key and nothing else, so `KEY=$(meetctl license issue ...)` works.
  io.out(`${await issueServerKey(pem, { customer, modules, days }, new Date())}\n`);
}

async function show(module: string, options: Record<string, unknown>, io: CliIo): Promise<void> {
  const context = installContext(options, io);
  const now = new Date();
  const installed = await installedLicence(context.paths.dataDir, module, context.config.licensePublicKey, now);
  if (installed.status === 'valid') {
    const summary = licenceSummary(installed.licence, now);
    if (options.json === true) {
      io.out(`${JSON.stringify({ module, status: 'valid', ...summary }, null, 2)}\n`);
    } else {
      io.out(
        `${module}: ${paint(io, 'green', 'valid')}\n  customer: ${summary.customer}\n  modules:  ${summary.modules.join(', ')}\n  expires:  ${summary.expiresAt} (${summary.daysLeft} days left)\n`,
      );
    }
    return;
  }
  if (options.json === true) {
    const detail =
      installed.status === 'invalid' ? { fault: installed.error.fault, message: installed.error.message } : {};
    io.out(`${JSON.stringify({ module, status: installed.status, ...detail }, null, 2)}\n`);
  }
  if (installed.status === 'absent')
    throw new CliError(
      'refused',
      `${module} is not installed in ${context.paths.dataDir}`,
      `run meetctl install ${module} --key KEY`,
    );
  throw new CliError(
    'config',
    `the installed ${module} licence is not valid: ${installed.error.message}`,
    `run meetctl install ${module} with a valid key`,
  );
}

export function licenseCommands(program: Command, io: CliIo): void {
  const license = program
    .command('license')
    .description("the licence authority's side (keygen, issue) and the installed licence (show)");
  license
    .command('keygen')
    .description("make the authority's Ed25519 key pair: licence.key (private, 0600) and licence.pub (public, 0644)")
    .option('--out <dir>', 'directory to write the pair into')
    .option('--force', 'replace an existing pair (keys issued with it stop verifying)')
    .action((options: { out?: string; force?: boolean }) => keygen(options, io));
  license
    .command('issue')
    .description('sign a server key; prints it on standard output and nothing else')
    .option('--private-key <path>', "the authority's private key (from license keygen)")
    .option('--customer <name>', 'who the key is for (shown by install, serve and doctor)')
    .option('--modules <list>', 'modules it unlocks, comma-separated (e.g. compat)')
    .option('--days <n>', `how long it is valid, in days (1 to ${maxLicenceDays})`)
    .action((options: Record<string, unknown>) => issue(options, io));
  const showCommand = license
    .command('show')
    .description(
      'the installed licence of a module: customer, modules, expiry, days left (exit 1 when not installed, 2 when not valid)',
    )
    .argument('[module]', 'module', 'compat')
    .option('--json', 'print it as JSON');
  addLocationOptions(showCommand);
  showCommand.action((module: string, options: Record<string, unknown>) => show(module, options, io));
}
