-- PostgreSQL form of 022 (issue 35 point 1): the nodes of a cluster, one row per node id. A node
-- registers at start, beats every few seconds with its load, and marks itself gone on a clean
-- stop; one that stopped beating is dead in every reader's view. `incarnation` is the start that
-- holds the id, so a second daemon with the same id cannot take over the row of a live one.
CREATE TABLE nodes (
  node_id       text PRIMARY KEY CHECK (node_id ~ '^[A-Za-z0-9._-]{1,64}$'),
  incarnation   text NOT NULL,
  http_address  text NOT NULL,
  started_at    timestamptz NOT NULL,
  last_beat_at  timestamptz NOT NULL,
  gone_at       timestamptz,
  open_rooms    integer NOT NULL DEFAULT 0 CHECK (open_rooms >= 0),
  live_sockets  integer NOT NULL DEFAULT 0 CHECK (live_sockets >= 0)
);
