import type { Command } from 'commander';
import type { CliIo } from './io.js';

/** Placeholder: the nginx command group is being written. */
export function nginxCommand(_program: Command, _io: CliIo): void {}
