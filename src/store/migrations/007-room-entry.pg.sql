-- PostgreSQL form of 007.
ALTER TABLE rooms ADD COLUMN entry text NOT NULL DEFAULT 'open' CHECK (entry IN ('open', 'token', 'closed'));
ALTER TABLE rooms ADD COLUMN unlisted boolean NOT NULL DEFAULT false;
