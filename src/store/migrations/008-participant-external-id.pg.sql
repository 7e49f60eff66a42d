-- PostgreSQL form of 008.
ALTER TABLE participants ADD COLUMN external_id text;
