-- A run's result over the inline budget, kept whole for hub.read. A handle
-- lasts as long as its run: it is deleted with it.
CREATE TABLE handles (
	id      TEXT PRIMARY KEY,           -- h_...
	run_id  TEXT NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
	kind    TEXT NOT NULL,              -- string | json
	bytes   INTEGER NOT NULL,           -- of value
	value   BLOB NOT NULL,              -- a string's UTF-8 text, or JSON text
	created INTEGER NOT NULL            -- unix ms
);
CREATE INDEX handles_run ON handles (run_id);
