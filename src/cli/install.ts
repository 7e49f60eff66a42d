import type { Command } from 'commander';
import type { CliIo } from './io.js';

/** Placeholder: the install command group is being written. */
export function installCommands(_program: Command, _io: CliIo): void {}
