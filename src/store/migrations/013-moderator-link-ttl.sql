-- How long a moderator's link made for the room stays good (issue 31: a teacher's link lasts a school term).
ALTER TABLE rooms ADD COLUMN moderator_link_ttl_secs INTEGER NOT NULL DEFAULT 10368000
  CHECK (moderator_link_ttl_secs BETWEEN 3600 AND 31536000);
