-- The tool catalog: every tool of every source, cached so search answers
-- before upstreams finish starting. hash pins the tool's definition.
CREATE TABLE tools (
	source     TEXT NOT NULL,
	name       TEXT NOT NULL,           -- the upstream MCP name
	definition TEXT NOT NULL,           -- the MCP tool as JSON
	hash       TEXT NOT NULL,
	first_seen INTEGER NOT NULL,        -- unix ms
	updated    INTEGER NOT NULL,
	PRIMARY KEY (source, name)
);

-- Changed (and new) tool definitions, for the person to see and accept.
CREATE TABLE tool_changes (
	id       INTEGER PRIMARY KEY AUTOINCREMENT,
	source   TEXT NOT NULL,
	name     TEXT NOT NULL,
	old_hash TEXT NOT NULL,             -- '' for a new tool
	new_hash TEXT NOT NULL,
	at       INTEGER NOT NULL,
	accepted INTEGER                    -- unix ms when accepted, NULL while open
);
CREATE INDEX tool_changes_open ON tool_changes (source, name) WHERE accepted IS NULL;

-- One execute and its resumes.
CREATE TABLE runs (
	id        TEXT PRIMARY KEY,
	code      TEXT NOT NULL,            -- after the forgiving rewrites
	notices   TEXT NOT NULL DEFAULT '[]',
	seed      INTEGER NOT NULL,
	clock     INTEGER NOT NULL,         -- logical clock start, unix ms
	status    TEXT NOT NULL,
	attempts  INTEGER NOT NULL DEFAULT 0,
	client    TEXT NOT NULL DEFAULT '',
	engine    TEXT NOT NULL DEFAULT '',
	prelude   TEXT NOT NULL DEFAULT '',
	envelope  TEXT,                     -- the last envelope returned, JSON
	created   INTEGER NOT NULL,
	updated   INTEGER NOT NULL
);
CREATE INDEX runs_status ON runs (status, updated);

-- Every tool call of a run, numbered when the code issued it.
CREATE TABLE journal (
	run_id     TEXT NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
	seq        INTEGER NOT NULL,
	address    TEXT NOT NULL,
	connection TEXT NOT NULL DEFAULT '',
	args_hash  TEXT NOT NULL,
	state      TEXT NOT NULL,           -- issued | ok | error | pending
	outcome    TEXT,                    -- JSON result or ToolError
	ms         INTEGER NOT NULL DEFAULT 0,
	started    INTEGER NOT NULL,
	PRIMARY KEY (run_id, seq)
);

-- Inputs a run waits for: an approval or a connection's secret.
CREATE TABLE pending (
	id         TEXT PRIMARY KEY,
	run_id     TEXT NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
	seq        INTEGER NOT NULL,
	kind       TEXT NOT NULL,           -- approval | connection
	address    TEXT NOT NULL,
	connection TEXT NOT NULL DEFAULT '',
	args_hash  TEXT NOT NULL,
	preview    TEXT NOT NULL DEFAULT '', -- redacted arguments
	reason     TEXT NOT NULL DEFAULT '',
	client     TEXT NOT NULL DEFAULT '',
	created    INTEGER NOT NULL,
	expires    INTEGER NOT NULL,
	decision   TEXT,                    -- allow | deny, NULL while open
	remember   INTEGER NOT NULL DEFAULT 0,
	channel    TEXT,                    -- who decided: dialog | client | cli
	decided    INTEGER,
	state_used INTEGER NOT NULL DEFAULT 0, -- a signed input-request state was redeemed
	UNIQUE (run_id, seq)
);
CREATE INDEX pending_open ON pending (decision, expires);

-- Remembered decisions ("always allow", "always deny") per address.
CREATE TABLE remembered (
	address TEXT PRIMARY KEY,
	mode    TEXT NOT NULL,
	channel TEXT NOT NULL,
	at      INTEGER NOT NULL
);

-- Every decision: who (channel), what, when.
CREATE TABLE audit (
	id         INTEGER PRIMARY KEY AUTOINCREMENT,
	at         INTEGER NOT NULL,
	channel    TEXT NOT NULL,
	actor      TEXT NOT NULL DEFAULT '',
	pending_id TEXT NOT NULL DEFAULT '',
	run_id     TEXT NOT NULL DEFAULT '',
	address    TEXT NOT NULL DEFAULT '',
	decision   TEXT NOT NULL,
	detail     TEXT NOT NULL DEFAULT ''
);
