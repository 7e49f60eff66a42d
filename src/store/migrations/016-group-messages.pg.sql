-- PostgreSQL form of 016.
CREATE TABLE group_messages (
  room_id text PRIMARY KEY REFERENCES rooms (room_id) ON DELETE CASCADE,
  text text NOT NULL,
  sender_name text NOT NULL
);
