import type { Command } from 'commander';
import type { CliIo } from './io.js';

/** Placeholder: the doctor command group is being written. */
export function doctorCommand(_program: Command, _io: CliIo): void {}
