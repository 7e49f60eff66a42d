-- The moderator's current message to all sub-groups of a main room. Kept on disk so that a page
-- arriving in a group after a restart (even kill -9) is still told it; cleared when everyone comes
-- back or the meeting ends; goes with its room.
CREATE TABLE group_messages (
  room_id TEXT PRIMARY KEY REFERENCES rooms (room_id) ON DELETE CASCADE,
  text TEXT NOT NULL,
  sender_name TEXT NOT NULL
) STRICT;
