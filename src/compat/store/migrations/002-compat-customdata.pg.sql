-- PostgreSQL form of 002.
CREATE TABLE compat_customdata (
  internal_id  text NOT NULL REFERENCES compat_meetings (internal_id) ON DELETE CASCADE,
  user_key     text NOT NULL,
  data_json    text NOT NULL,
  PRIMARY KEY (internal_id, user_key)
);
