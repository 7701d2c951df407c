-- Where the run's timers had fired while calls were in flight when the code
-- issued this call (JSON, sandbox.Early entries): a resumed run fires them
-- at the same points, so it reaches the call the same way.
ALTER TABLE journal ADD COLUMN fired TEXT;
