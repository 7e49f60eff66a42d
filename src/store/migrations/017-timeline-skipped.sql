-- How many an admit_all entry left waiting because their name is that of a person barred in this
-- meeting (Admit all, the waiting room turned off, a moderator's arrival under until_moderator);
-- NULL: none, and every entry written before this migration.
ALTER TABLE timeline_entries ADD COLUMN skipped INTEGER;
