-- PostgreSQL form of 014.
CREATE TABLE subgroup_timers (
  room_id text PRIMARY KEY REFERENCES rooms (room_id) ON DELETE CASCADE,
  ends_at text NOT NULL
);
