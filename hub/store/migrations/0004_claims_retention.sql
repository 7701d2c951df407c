-- One hub process at a time attempts a run: the attempt leases the run
-- (owner names the process, lease is when the lease ends, unix ms; 0 when
-- no attempt runs), so two hubs on one home never both replay and send it.
ALTER TABLE runs ADD COLUMN owner TEXT NOT NULL DEFAULT '';
ALTER TABLE runs ADD COLUMN lease INTEGER NOT NULL DEFAULT 0;
-- Retention deletes finished runs by age, oldest first.
CREATE INDEX runs_updated ON runs (updated);

-- An approved call is claimed once, by the attempt that sends it.
ALTER TABLE pending ADD COLUMN claimed INTEGER;              -- unix ms, NULL until claimed
ALTER TABLE pending ADD COLUMN claimed_by TEXT NOT NULL DEFAULT '';
-- The nonce of the last input-request state signed for the call; an answer
-- redeems it once, and the next request signs a new one.
ALTER TABLE pending ADD COLUMN state_nonce TEXT;
