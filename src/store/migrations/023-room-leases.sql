-- 023 (issue 35 stage 2): nothing changes on SQLite, which serves one node only. PostgreSQL's
-- form adds the rooms' leases (one owner node per room, with an epoch) and the nodes' lock key.
SELECT 1;
