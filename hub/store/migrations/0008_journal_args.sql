-- What a call was sent with, for a person reading the run: its arguments
-- as JSON text, scrubbed of every secret value the hub knows and cut to a
-- few KB (store.KeepArgs). NULL where they were not recorded: entries
-- journaled before this column, or a call whose run had no room left.
-- A replay matches a call by args_hash, never by this text.
ALTER TABLE journal ADD COLUMN args TEXT;
