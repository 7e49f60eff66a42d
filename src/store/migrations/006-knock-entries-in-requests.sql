-- A knock's timeline entry is kept in its request row instead of a row of timeline_entries:
-- that row's entry in timeline_entries_by_meeting landed on a random page for every knock, and
-- the pages a commit dirties are most of what a knock costs. The entry is derived when the
-- timeline is read (kind 'knock', at knocked_at, subject request_id and name) and sorts right
-- after the meeting's entry whose seq is knock_after_seq (0: before all of them), then by rowid
-- among knocks after the same entry: exactly where its own row would have been.
-- NULL: the knock has its own row in timeline_entries (written before this migration).
ALTER TABLE waiting_requests ADD COLUMN knock_after_seq INTEGER;
