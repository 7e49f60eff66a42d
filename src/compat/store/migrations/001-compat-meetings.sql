-- The meeting API's own state (compat module): meetings created through /confapi/api/,
-- the system chat it posted, outbound callbacks and recording metadata. The engine's
-- database is never touched from here; rooms and meetings of the engine are driven
-- through its services.

CREATE TABLE compat_meetings (
  internal_id       TEXT PRIMARY KEY,
  tenant_id         TEXT NOT NULL,
  meeting_id        TEXT NOT NULL,
  room_id           TEXT NOT NULL,
  name              TEXT NOT NULL,
  attendee_pw       TEXT NOT NULL,
  moderator_pw      TEXT NOT NULL,
  create_time       INTEGER NOT NULL,
  voice_bridge      TEXT NOT NULL,
  dial_number       TEXT NOT NULL,
  duration_min      INTEGER NOT NULL,
  max_participants  INTEGER NOT NULL,
  record            INTEGER NOT NULL,
  guest_policy      TEXT NOT NULL,
  settings_json     TEXT NOT NULL,
  metadata_json     TEXT NOT NULL,
  presentations_json TEXT NOT NULL,
  engine_meeting_id TEXT,
  start_time        INTEGER,
  end_time          INTEGER,
  forcibly_ended    INTEGER NOT NULL DEFAULT 0,
  end_reason        TEXT
) STRICT;

-- At most one meeting per (tenant, meetingID) is not ended: re-create returns it.
CREATE UNIQUE INDEX compat_meetings_open ON compat_meetings (tenant_id, meeting_id) WHERE end_time IS NULL;
CREATE INDEX compat_meetings_by_id ON compat_meetings (meeting_id, create_time);
CREATE INDEX compat_meetings_by_room ON compat_meetings (room_id, create_time);

CREATE TABLE compat_chat (
  seq          INTEGER PRIMARY KEY AUTOINCREMENT,
  internal_id  TEXT NOT NULL REFERENCES compat_meetings (internal_id) ON DELETE CASCADE,
  at           INTEGER NOT NULL,
  sender       TEXT NOT NULL,
  text         TEXT NOT NULL,
  delivered    INTEGER NOT NULL
) STRICT;
CREATE INDEX compat_chat_by_meeting ON compat_chat (internal_id, seq);

CREATE TABLE compat_callbacks (
  id           INTEGER PRIMARY KEY AUTOINCREMENT,
  kind         TEXT NOT NULL,
  tenant_id    TEXT NOT NULL,
  internal_id  TEXT NOT NULL,
  method       TEXT NOT NULL,
  url          TEXT NOT NULL,
  body         TEXT,
  content_type TEXT,
  attempts     INTEGER NOT NULL DEFAULT 0,
  next_at      INTEGER NOT NULL,
  created_at   INTEGER NOT NULL,
  done_at      INTEGER,
  outcome      TEXT,
  last_error   TEXT
) STRICT;
CREATE INDEX compat_callbacks_pending ON compat_callbacks (next_at) WHERE done_at IS NULL;

CREATE TABLE compat_recordings (
  record_id     TEXT PRIMARY KEY,
  tenant_id     TEXT NOT NULL,
  meeting_id    TEXT NOT NULL,
  internal_id   TEXT NOT NULL,
  name          TEXT NOT NULL,
  published     INTEGER NOT NULL,
  protected     INTEGER NOT NULL DEFAULT 0,
  start_time    INTEGER NOT NULL,
  end_time      INTEGER NOT NULL,
  participants  INTEGER NOT NULL DEFAULT 0,
  metadata_json TEXT NOT NULL
) STRICT;
CREATE INDEX compat_recordings_by_meeting ON compat_recordings (tenant_id, meeting_id);
