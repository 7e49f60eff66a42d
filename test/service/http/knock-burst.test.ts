// Issue 34 point 7: a burst of knocks in rooms with no meeting yet, one group commit. On
// PostgreSQL on one node the group's writes are sent together (UnitOfWork.inOrderAtOnce), so a
// room's meeting row and its knocks travel in one round trip: the meeting's row must still come
// before the requests that refer to it, and every knock stay in its room's order. On both stores:
// every knock acknowledged, one meeting per room, each room's list in knock order, and on
// PostgreSQL the rows themselves.
import postgres from 'postgres';
import { appFor } from '../../helpers/app.js';
import { onEachServiceStore } from '../../helpers/service-stores.js';
import { Browser, asSession, createRoom, moderator, names } from '../../helpers/waiting.js';

const rooms = ['burst-a', 'burst-b', 'burst-c', 'burst-d'];
const people = ['Ann', 'Bo', 'Cy', 'Di', 'Ed'];

onEachServiceStore(
  '20 knocks at once in 4 rooms with no meeting: all acknowledged, in order, one meeting each',
  async (t, store) => {
    const engine = await appFor(t, { store });
    for (const room of rooms) await createRoom(t, engine, { room_id: room, name: room, waiting_room: 'all' });

    const knocks = rooms.flatMap((room) =>
      people.map((name) => new Browser(engine, room).knock({ name: `${name} ${room}` })),
    );
    const answers = await Promise.all(knocks);
    t.same(
      answers.map((a) => a.status),
      answers.map(() => 202),
      'every knock acknowledged',
    );

    for (const room of rooms) {
      const mod = await moderator(engine, room);
      t.same(
        names(await asSession.list(engine, room, mod.session)),
        people.map((name) => `${name} ${room}`),
        `${room}: every knock listed, in knock order`,
      );
    }

    if (store.database) {
      const sql = postgres({ ...store.database.options, onnotice: () => {} });
      t.teardown(() => sql.end({ timeout: 5 }));
      const rows = await sql<{ room_id: string; meetings: number; requests: number }[]>`
      SELECT m.room_id, count(DISTINCT m.meeting_id)::int AS meetings, count(w.request_id)::int AS requests
      FROM meet_engine.meetings m LEFT JOIN meet_engine.waiting_requests w ON w.meeting_id = m.meeting_id
      WHERE m.room_id LIKE 'burst-%' GROUP BY m.room_id ORDER BY m.room_id`;
      t.same(
        rows.map((r) => `${r.room_id}: ${r.meetings} meeting, ${r.requests} requests`),
        rooms.map((room) => `${room}: 1 meeting, 5 requests`),
        'in PostgreSQL: one meeting per room and its five requests',
      );
    }
  },
);
