// Issue 34 point 2: on SQLite a meeting-API `create` writes two files (the meeting's row, then its
// engine room; CompatMeetings.create takes the row back when the room fails, and a start rolls a
// lone row forward). On PostgreSQL, both stores on one database, the two writes are ONE
// transaction: the meeting-API store joins the engine's unit of work, so a failure after both
// writes leaves neither, another connection sees neither before COMMIT and both after, and a
// transaction of either store inside the other's is a savepoint of the same transaction.
import type { Test } from 'tap';
import { PostgresCompatStore } from '../../../src/compat/store/postgres-store.js';
import { compatMigrationSteps, compatSchema } from '../../../src/compat/store/postgres-schema.js';
import { migratePostgres } from '../../../src/platform/pg-migrate.js';
import { engineMigrationSteps, engineSchema } from '../../../src/store/postgres/schema.js';
import { postgresStores } from '../../../src/store/postgres/stores.js';
import { meeting } from '../../helpers/compat-meeting.js';
import { pool } from '../../helpers/compat-store-adapters.js';
import { freshDatabase, postgresTest, type PostgresDatabase } from '../../helpers/postgres.js';
import { waitingRoomFixture } from '../../helpers/room-fixture.js';

const t0 = Date.parse('2030-01-01T09:00:00.000Z');

/** The engine's stores and the meeting API's on one pool, as the daemon wires them on PostgreSQL. */
function node(t: Test, database: PostgresDatabase) {
  const engine = postgresStores(pool(t, database));
  // The engine's unit of work is the connection source: the meeting API's writes join its units.
  const compat = new PostgresCompatStore(engine.unitOfWork);
  return { engine, compat };
}

postgresTest('a create (the meeting row and its engine room) is one transaction on one database', async (t) => {
  const database = await freshDatabase(t);
  const { engine, compat } = node(t, database);
  await migratePostgres(pool(t, database, 1), engineSchema, engineMigrationSteps());
  await migratePostgres(pool(t, database, 1), compatSchema, compatMigrationSteps());
  const other = node(t, database);

  // The room fails after both writes were sent: neither is kept.
  const lost = meeting('uni', 'lost', t0);
  await t.rejects(
    engine.unitOfWork.run(async () => {
      await compat.insertMeeting(lost);
      t.equal(await engine.rooms.insert(waitingRoomFixture(lost.roomId)), true);
      throw new Error('the room could not be made');
    }),
    /the room could not be made/,
  );
  t.equal(await other.compat.meeting(lost.internalId), null, 'no meeting row without its room');
  t.equal(await other.engine.rooms.get(lost.roomId), null, 'no room without its meeting');

  // Committed together: another node sees neither before COMMIT, both after.
  const made = meeting('uni', 'made', t0);
  let commit!: () => void;
  const gate = new Promise<void>((resolve) => (commit = resolve));
  let written!: () => void;
  const bothWritten = new Promise<void>((resolve) => (written = resolve));
  const create = engine.unitOfWork.run(async () => {
    await compat.insertMeeting(made);
    await engine.rooms.insert(waitingRoomFixture(made.roomId));
    written();
    await gate;
  });
  await bothWritten;
  t.equal(await other.compat.meeting(made.internalId), null, 'before COMMIT: no row');
  t.equal(await other.engine.rooms.get(made.roomId), null, 'before COMMIT: no room');
  commit();
  await create;
  t.same(await other.compat.meeting(made.internalId), made, 'after: the row');
  t.equal((await other.engine.rooms.get(made.roomId))?.roomId, made.roomId, 'after: the room');

  // The meeting API's transaction inside the engine's unit (and the reverse) is a savepoint of it.
  const kept = meeting('uni', 'kept', t0);
  await engine.unitOfWork.run(async () => {
    await compat.insertMeeting(kept);
    await t.rejects(
      compat.transaction(async () => {
        await engine.rooms.insert(waitingRoomFixture('room-of-a-failed-step'));
        await compat.updateMeeting({ ...kept, name: 'renamed' });
        throw new Error('inner');
      }),
    );
    await engine.rooms.insert(waitingRoomFixture(kept.roomId));
  });
  t.same(await other.compat.meeting(kept.internalId), kept, 'the outer writes committed');
  t.equal(await other.engine.rooms.get('room-of-a-failed-step'), null, 'the savepoint rolled back alone');
  t.ok(await other.engine.rooms.get(kept.roomId));
  await t.rejects(
    compat.transaction(async () => {
      await compat.deleteMeeting(kept.internalId);
      await engine.unitOfWork.run(async () => {
        await engine.rooms.delete(kept.roomId);
      });
      throw new Error('taken back');
    }),
  );
  t.ok(await other.compat.meeting(kept.internalId), 'a unit inside the store transaction goes with it');
  t.ok(await other.engine.rooms.get(kept.roomId));
});
