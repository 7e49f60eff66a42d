-- PostgreSQL form of 024 (issue 35 point 6): the Janus servers every node of a cluster places
-- meetings on, with their load (meetings placed and not ended), and each meeting's server. A
-- placement locks the live servers' rows (FOR UPDATE) while it chooses and reserves, so the
-- placements of all nodes take turns and each sees the load the others reserved.
CREATE TABLE janus_servers (
  url         text PRIMARY KEY,
  load        integer NOT NULL DEFAULT 0 CHECK (load >= 0),
  down_since  timestamptz
);

-- The room's secret and pin are kept with it, so a node that takes the meeting over (its owner
-- died, its Janus did not) can sign for the room the dead node made.
CREATE TABLE janus_placements (
  meeting_id   text PRIMARY KEY,
  url          text NOT NULL REFERENCES janus_servers (url),
  room_secret  text,
  room_pin     text
);
CREATE INDEX janus_placements_by_url ON janus_placements (url);
