import { fileURLToPath } from 'node:url';
import { readMigrationSteps, type MigrationStep } from '../../platform/pg-migrate.js';

/** The meeting API's schema on PostgreSQL (issue 34): the tables of confapi.sqlite, from the same migration list. */
export const compatSchema = 'meet_compat';

const migrationsDir = fileURLToPath(new URL('./migrations', import.meta.url));

/** The meeting API's migrations, each with its SQLite and PostgreSQL form. */
export function compatMigrationSteps(): MigrationStep[] {
  return readMigrationSteps(migrationsDir);
}
