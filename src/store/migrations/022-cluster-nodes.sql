-- 022 (issue 35 point 1): nothing changes on SQLite, which serves one node only (a cluster needs
-- PostgreSQL: config refuses SERVICE_NATS_URL beside it). PostgreSQL's form adds the registry of
-- the nodes of a cluster.
SELECT 1;
