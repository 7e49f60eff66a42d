-- A sub-group (breakout) room belongs to a parent room and goes when the parent goes.
ALTER TABLE rooms ADD COLUMN parent_room_id TEXT REFERENCES rooms (room_id) ON DELETE CASCADE;
CREATE INDEX rooms_by_parent ON rooms (parent_room_id) WHERE parent_room_id IS NOT NULL;
