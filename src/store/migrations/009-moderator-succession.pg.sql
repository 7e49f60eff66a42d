-- PostgreSQL form of 009.
ALTER TABLE rooms ADD COLUMN moderator_succession boolean NOT NULL DEFAULT false;
