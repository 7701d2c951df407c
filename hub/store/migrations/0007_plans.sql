-- A run's plan: the calls that need consent, collected ahead of the first
-- one and decided at once. A planned call's pending row has seq = -(the
-- call's seq while planning), so it never stands for a call of the run's
-- journal, and plan holds the rest of the entry (JSON, store.PlanEntry);
-- plan_used is the seq of the call of the real run that used the entry.
ALTER TABLE pending ADD COLUMN plan TEXT;
ALTER TABLE pending ADD COLUMN plan_used INTEGER NOT NULL DEFAULT 0;
-- The run's last plan as a whole (JSON, store.RunPlan): where planning
-- stopped and the calls policy denied while planning.
ALTER TABLE runs ADD COLUMN plan TEXT;
