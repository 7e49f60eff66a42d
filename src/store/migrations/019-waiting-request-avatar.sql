-- Issue 33: the picture of a person who waits (her link's avatarURL or gateway token's avatar,
-- an http(s) URL), carried to her participant when she is admitted. NULL: none (or a request
-- written before this migration).
ALTER TABLE waiting_requests ADD COLUMN avatar_url TEXT;
