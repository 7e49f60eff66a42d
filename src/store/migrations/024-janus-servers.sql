-- 024 (issue 35 point 6): the Janus servers of SERVICE_JANUS_URLS and the meetings placed on them.
-- `load` is the number of meetings placed there and not yet ended, reserved in the same
-- transaction as the choice, so two placements never read the same load. A server whose control
-- session failed is down (`down_since`) until it answers again: no meeting is placed there.
CREATE TABLE janus_servers (
  url TEXT PRIMARY KEY,
  load INTEGER NOT NULL DEFAULT 0 CHECK (load >= 0),
  down_since TEXT
);

-- The room's secret and pin are kept with it, so a node that takes the meeting over (its owner
-- died, its Janus did not) can sign for the room the dead node made.
CREATE TABLE janus_placements (
  meeting_id TEXT PRIMARY KEY,
  url TEXT NOT NULL REFERENCES janus_servers (url),
  room_secret TEXT,
  room_pin TEXT
);
CREATE INDEX janus_placements_by_url ON janus_placements (url);
