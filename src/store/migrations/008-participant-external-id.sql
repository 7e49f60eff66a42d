-- The platform's id of a participant (the meeting API's join `userID`), for the analytics
-- callback's `ext_user_id`: platforms match attendance to their users by it.
ALTER TABLE participants ADD COLUMN external_id TEXT;
