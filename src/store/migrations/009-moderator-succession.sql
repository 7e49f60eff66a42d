-- Open rooms of the embed gateway (anonymous arrivals allowed) are never left without a
-- moderator: the first person present becomes one, and the next present person when she leaves.
ALTER TABLE rooms ADD COLUMN moderator_succession INTEGER NOT NULL DEFAULT 0 CHECK (moderator_succession IN (0, 1));
