import type { Command } from 'commander';
import type { CliIo } from './io.js';

/** Placeholder: the tenant command group is being written. */
export function tenantCommands(_program: Command, _io: CliIo): void {}
