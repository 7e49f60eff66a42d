-- PostgreSQL form of 017.
ALTER TABLE timeline_entries ADD COLUMN skipped integer;
