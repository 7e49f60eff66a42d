-- PostgreSQL form of 021: the HS256 key of join and session tokens, one row for the whole
-- installation. Made once: the first daemon's INSERT ... ON CONFLICT DO NOTHING wins, and every
-- daemon reads back the row that is there (daemon/signing-key.ts).
CREATE TABLE signing_key (
  id          smallint PRIMARY KEY CHECK (id = 1),
  key         bytea NOT NULL CHECK (length(key) >= 32),
  created_at  timestamptz NOT NULL DEFAULT now()
);
