-- PostgreSQL form of 023 (issue 35 stage 2): each room has one owner node at a time. A lease is
-- one row per room: its owner, an epoch that grows with every change of owner (every write of the
-- room's state checks it, so an owner that lost the room cannot write), and when it expires unless
-- renewed. A lease goes with its room. `nodes.lock_key` is set while a node holds its session
-- advisory lock (a dedicated connection): once PostgreSQL frees the lock, the node is dead.
ALTER TABLE nodes ADD COLUMN lock_key integer;

CREATE TABLE room_leases (
  room_id     text PRIMARY KEY REFERENCES rooms (room_id) ON DELETE CASCADE,
  owner_node  text NOT NULL CHECK (owner_node ~ '^[A-Za-z0-9._-]{1,64}$'),
  epoch       bigint NOT NULL CHECK (epoch >= 1),
  expires_at  timestamptz NOT NULL
);
CREATE INDEX room_leases_by_owner ON room_leases (owner_node);
