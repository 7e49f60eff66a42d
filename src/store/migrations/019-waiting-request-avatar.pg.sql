-- PostgreSQL form of 019.
ALTER TABLE waiting_requests ADD COLUMN avatar_url text;
