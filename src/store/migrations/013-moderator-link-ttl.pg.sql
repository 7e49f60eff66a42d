-- PostgreSQL form of 013.
ALTER TABLE rooms ADD COLUMN moderator_link_ttl_secs integer NOT NULL DEFAULT 10368000
  CHECK (moderator_link_ttl_secs BETWEEN 3600 AND 31536000);
