-- A meeting is one session of a room. Deleting the room deletes its meetings and, through
-- them, participants, requests and the timeline.
CREATE TABLE meetings (
  meeting_id TEXT PRIMARY KEY,
  room_id TEXT NOT NULL REFERENCES rooms (room_id) ON DELETE CASCADE,
  started_at TEXT NOT NULL,
  ended_at TEXT,
  waiting_disabled INTEGER NOT NULL DEFAULT 0 CHECK (waiting_disabled IN (0, 1))
) STRICT;

-- One room hosts one meeting at a time.
CREATE UNIQUE INDEX meetings_open_per_room ON meetings (room_id) WHERE ended_at IS NULL;
CREATE INDEX meetings_by_room ON meetings (room_id, started_at);

CREATE TABLE participants (
  participant_id TEXT PRIMARY KEY,
  meeting_id TEXT NOT NULL REFERENCES meetings (meeting_id) ON DELETE CASCADE,
  role TEXT NOT NULL CHECK (role IN ('moderator', 'participant')),
  name TEXT NOT NULL,
  joined_at TEXT NOT NULL,
  left_at TEXT
) STRICT;

CREATE INDEX participants_by_meeting ON participants (meeting_id, joined_at);

-- Only a SHA-256 of the browser's secret is kept; the secret is the person's cookie.
CREATE TABLE waiting_requests (
  request_id TEXT PRIMARY KEY,
  meeting_id TEXT NOT NULL REFERENCES meetings (meeting_id) ON DELETE CASCADE,
  secret_hash BLOB NOT NULL UNIQUE,
  name TEXT NOT NULL,
  note TEXT NOT NULL,
  state TEXT NOT NULL CHECK (state IN ('waiting', 'admitted', 'refused', 'barred', 'expired', 'withdrawn', 'window_closed')),
  knocked_at TEXT NOT NULL,
  expires_at TEXT NOT NULL,
  decided_at TEXT,
  participant_id TEXT
) STRICT;

CREATE INDEX waiting_requests_by_meeting ON waiting_requests (meeting_id, state);

-- Append-only; seq orders entries written within the same millisecond. kind has no CHECK so
-- that a new kind of entry does not need a table rebuild.
CREATE TABLE timeline_entries (
  seq INTEGER PRIMARY KEY,
  meeting_id TEXT NOT NULL REFERENCES meetings (meeting_id) ON DELETE CASCADE,
  at TEXT NOT NULL,
  kind TEXT NOT NULL,
  actor_kind TEXT CHECK (actor_kind IN ('participant', 'api')),
  actor_participant_id TEXT,
  actor_name TEXT,
  subject_request_id TEXT,
  subject_participant_id TEXT,
  subject_name TEXT,
  count INTEGER
) STRICT;

CREATE INDEX timeline_entries_by_meeting ON timeline_entries (meeting_id, seq);
