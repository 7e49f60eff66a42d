-- PostgreSQL form of 001 (same tables and columns; BLOB is bytea, STRICT has no equivalent: PostgreSQL's types are strict).
CREATE TABLE rooms (
  room_id text PRIMARY KEY,
  name text NOT NULL,
  waiting_room text NOT NULL CHECK (waiting_room IN ('off', 'guests', 'all')),
  waiting_room_mode text NOT NULL CHECK (waiting_room_mode IN ('until_moderator', 'approval')),
  waiting_room_timeout_secs integer NOT NULL CHECK (waiting_room_timeout_secs BETWEEN 30 AND 3600),
  access_code_hash text,
  created_at text NOT NULL,
  updated_at text NOT NULL
);

CREATE TABLE access_tokens (
  name text PRIMARY KEY,
  token_hash bytea NOT NULL UNIQUE,
  created_at text NOT NULL,
  last_used_at text
);

CREATE TABLE instance_meta (
  key text PRIMARY KEY,
  value text NOT NULL
);
