-- The live connection's records of a meeting: chat, lock settings and per-participant
-- statistics. All go with their meeting (and so with its room).

-- Chat in the order posted; participant_id is NULL for messages of the system.
CREATE TABLE chat_messages (
  seq INTEGER PRIMARY KEY,
  meeting_id TEXT NOT NULL REFERENCES meetings (meeting_id) ON DELETE CASCADE,
  at TEXT NOT NULL,
  participant_id TEXT,
  name TEXT NOT NULL,
  text TEXT NOT NULL
) STRICT;

CREATE INDEX chat_messages_by_meeting ON chat_messages (meeting_id, seq);

-- Lock settings for the participants (never the moderators) of a meeting; no row = unlocked.
CREATE TABLE meeting_locks (
  meeting_id TEXT PRIMARY KEY REFERENCES meetings (meeting_id) ON DELETE CASCADE,
  mic INTEGER NOT NULL CHECK (mic IN (0, 1)),
  cam INTEGER NOT NULL CHECK (cam IN (0, 1)),
  cams_moderators_only INTEGER NOT NULL CHECK (cams_moderators_only IN (0, 1)),
  updated_at TEXT NOT NULL
) STRICT;

-- Derived by the server from what the live connection reports: current audio and video,
-- the sum of closed speaking intervals (talking_since is the start of an open one) and the
-- number of chat messages.
CREATE TABLE participant_stats (
  participant_id TEXT PRIMARY KEY REFERENCES participants (participant_id) ON DELETE CASCADE,
  meeting_id TEXT NOT NULL REFERENCES meetings (meeting_id) ON DELETE CASCADE,
  audio INTEGER NOT NULL DEFAULT 0 CHECK (audio IN (0, 1)),
  video INTEGER NOT NULL DEFAULT 0 CHECK (video IN (0, 1)),
  talk_ms INTEGER NOT NULL DEFAULT 0,
  talking_since TEXT,
  last_talk_at TEXT,
  chat_messages INTEGER NOT NULL DEFAULT 0
) STRICT;

CREATE INDEX participant_stats_by_meeting ON participant_stats (meeting_id);

-- Each time a participant's video was on; ended_at is NULL while it still is.
CREATE TABLE webcam_intervals (
  seq INTEGER PRIMARY KEY,
  meeting_id TEXT NOT NULL REFERENCES meetings (meeting_id) ON DELETE CASCADE,
  participant_id TEXT NOT NULL REFERENCES participants (participant_id) ON DELETE CASCADE,
  started_at TEXT NOT NULL,
  ended_at TEXT
) STRICT;

CREATE INDEX webcam_intervals_by_meeting ON webcam_intervals (meeting_id, seq);
CREATE INDEX webcam_intervals_running ON webcam_intervals (participant_id) WHERE ended_at IS NULL;
