-- 021 (issue 34 point 1): nothing changes on SQLite, where the signing key stays a file of the
-- data directory (daemon/signing-key.ts). PostgreSQL's form adds the table every node reads the
-- key from, so all of them sign and verify the same tokens.
SELECT 1;
