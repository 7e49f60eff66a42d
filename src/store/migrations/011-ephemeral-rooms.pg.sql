-- PostgreSQL form of 011.
ALTER TABLE rooms ADD COLUMN ephemeral boolean NOT NULL DEFAULT false;
CREATE INDEX rooms_ephemeral_by_update ON rooms (updated_at) WHERE ephemeral;
