-- 020 (issue 34 point 5): nothing changes on SQLite. participant_stats is read in rowid order
-- (statsOf, unsettledStats); PostgreSQL has no rowid, so its form adds the ordinal that stands in.
SELECT 1;
