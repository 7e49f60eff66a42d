-- PostgreSQL form of 003.
ALTER TABLE rooms ADD COLUMN parent_room_id text REFERENCES rooms (room_id) ON DELETE CASCADE;
CREATE INDEX rooms_by_parent ON rooms (parent_room_id) WHERE parent_room_id IS NOT NULL;
