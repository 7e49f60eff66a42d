import { fileURLToPath } from 'node:url';
import { readMigrationSteps, type MigrationStep } from '../../platform/pg-migrate.js';

/** The engine's schema on PostgreSQL (issue 34): the tables of meet.sqlite, from the same migration list. */
export const engineSchema = 'meet_engine';

const migrationsDir = fileURLToPath(new URL('../migrations', import.meta.url));

/** The engine's migrations, each with its SQLite and PostgreSQL form. */
export function engineMigrationSteps(): MigrationStep[] {
  return readMigrationSteps(migrationsDir);
}
