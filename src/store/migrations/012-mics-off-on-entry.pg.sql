-- PostgreSQL form of 012.
ALTER TABLE rooms ADD COLUMN mics_off_on_entry boolean NOT NULL DEFAULT false;
