-- PostgreSQL form of 006.
ALTER TABLE waiting_requests ADD COLUMN knock_after_seq bigint;
