-- PostgreSQL form of 005: PostgreSQL drops the UNIQUE in place (SQLite had to rebuild the table).
ALTER TABLE waiting_requests DROP CONSTRAINT waiting_requests_secret_hash_key;
