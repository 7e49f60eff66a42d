-- The meeting's subject (its title), set by a moderator during the meeting; '' for none.
-- Kept with the meeting so that a restart shows the same heading.
ALTER TABLE meetings ADD COLUMN subject TEXT NOT NULL DEFAULT '';
