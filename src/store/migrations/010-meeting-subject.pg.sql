-- PostgreSQL form of 010.
ALTER TABLE meetings ADD COLUMN subject text NOT NULL DEFAULT '';
