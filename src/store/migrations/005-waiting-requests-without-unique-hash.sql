-- waiting_requests loses the UNIQUE on secret_hash. Every lookup by hash is in memory (the
-- room's queue); SQLite never searched by it, and 256-bit random secrets do not collide. The
-- index behind the UNIQUE cost every knock a write to a random page of it, and the pages a
-- commit dirties are most of what a knock costs.
--
-- SQLite cannot drop a column constraint in place, so the table is rebuilt the way SQLite
-- recommends (https://www.sqlite.org/lang_altertable.html#otheralter): create the new table,
-- copy, drop the old one, rename the new one, recreate its index. It runs inside the migration's
-- transaction, where PRAGMA foreign_keys cannot change, so foreign keys stay ON throughout: the
-- copy checks each row's meeting, and dropping the old table deletes nothing elsewhere because no
-- table refers to waiting_requests. rowid is copied too: requests of the same millisecond are
-- ordered by it.
CREATE TABLE waiting_requests_new (
  request_id TEXT PRIMARY KEY,
  meeting_id TEXT NOT NULL REFERENCES meetings (meeting_id) ON DELETE CASCADE,
  secret_hash BLOB NOT NULL,
  name TEXT NOT NULL,
  note TEXT NOT NULL,
  state TEXT NOT NULL CHECK (state IN ('waiting', 'admitted', 'refused', 'barred', 'expired', 'withdrawn', 'window_closed')),
  knocked_at TEXT NOT NULL,
  expires_at TEXT NOT NULL,
  decided_at TEXT,
  participant_id TEXT
) STRICT;

INSERT INTO waiting_requests_new (rowid, request_id, meeting_id, secret_hash, name, note, state, knocked_at, expires_at, decided_at, participant_id)
  SELECT rowid, request_id, meeting_id, secret_hash, name, note, state, knocked_at, expires_at, decided_at, participant_id
  FROM waiting_requests ORDER BY rowid;

DROP TABLE waiting_requests;
ALTER TABLE waiting_requests_new RENAME TO waiting_requests;

CREATE INDEX waiting_requests_by_meeting ON waiting_requests (meeting_id, state);
