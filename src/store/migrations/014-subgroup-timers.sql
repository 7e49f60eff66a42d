-- The sub-groups' timer of a main room: when everyone comes back to it. Kept on disk so that a
-- restart (even kill -9) still brings them back on time; goes with its room.
CREATE TABLE subgroup_timers (
  room_id TEXT PRIMARY KEY REFERENCES rooms (room_id) ON DELETE CASCADE,
  ends_at TEXT NOT NULL
) STRICT;
