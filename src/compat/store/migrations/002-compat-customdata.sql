-- Issue 33 point 8: the `userdata-*` parameters of a join, echoed as the attendee's
-- <customdata> in getMeetingInfo and getMeetings (as upstream). One row per meeting and
-- person (the join's userID, or the internal user id the join answered); a later join of
-- the same person replaces it. Goes with its meeting.
CREATE TABLE compat_customdata (
  internal_id  TEXT NOT NULL REFERENCES compat_meetings (internal_id) ON DELETE CASCADE,
  user_key     TEXT NOT NULL,
  data_json    TEXT NOT NULL,
  PRIMARY KEY (internal_id, user_key)
) STRICT, WITHOUT ROWID;
