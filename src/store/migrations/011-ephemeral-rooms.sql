-- Rooms made by arrivals nobody vouched for (the embed gateway's open rooms) are deleted once
-- unused, so anonymous arrivals cannot pile up durable rooms; the sweep finds them by this index.
ALTER TABLE rooms ADD COLUMN ephemeral INTEGER NOT NULL DEFAULT 0 CHECK (ephemeral IN (0, 1));
CREATE INDEX rooms_ephemeral_by_update ON rooms (updated_at) WHERE ephemeral = 1;
