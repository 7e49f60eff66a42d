-- Rooms a platform drives (the meeting API) can refuse bare-link arrivals, close for good when
-- their meeting ends, and stay out of `exists` for callers without a join token.
ALTER TABLE rooms ADD COLUMN entry TEXT NOT NULL DEFAULT 'open' CHECK (entry IN ('open', 'token', 'closed'));
ALTER TABLE rooms ADD COLUMN unlisted INTEGER NOT NULL DEFAULT 0 CHECK (unlisted IN (0, 1));
