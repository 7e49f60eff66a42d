-- Rooms of the rooms API. The access code is kept only as a salted scrypt hash.
CREATE TABLE rooms (
  room_id TEXT PRIMARY KEY,
  name TEXT NOT NULL,
  waiting_room TEXT NOT NULL CHECK (waiting_room IN ('off', 'guests', 'all')),
  waiting_room_mode TEXT NOT NULL CHECK (waiting_room_mode IN ('until_moderator', 'approval')),
  waiting_room_timeout_secs INTEGER NOT NULL CHECK (waiting_room_timeout_secs BETWEEN 30 AND 3600),
  access_code_hash TEXT,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL
) STRICT;

-- Bearer tokens of the rooms API. Only a SHA-256 of the token is stored.
CREATE TABLE access_tokens (
  name TEXT PRIMARY KEY,
  token_hash BLOB NOT NULL UNIQUE,
  created_at TEXT NOT NULL,
  last_used_at TEXT
) STRICT;

-- Facts about the instance itself (e.g. whether the first admin token was issued).
CREATE TABLE instance_meta (
  key TEXT PRIMARY KEY,
  value TEXT NOT NULL
) STRICT;
