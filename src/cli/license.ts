import type { Command } from 'commander';
import type { CliIo } from './io.js';

/** Placeholder: the license command group is being written. */
export function licenseCommands(_program: Command, _io: CliIo): void {}
