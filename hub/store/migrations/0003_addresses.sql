-- The address of each tool: its method name in its source's namespace, per
-- (source, MCP name). It is given when the tool is first listed and never
-- given to another name, so a tool an upstream adds beside an approved one
-- (send-note beside send_note) never takes over its address. It outlives its
-- tool: a tool removed and added back gets its own address again. Tools
-- already listed get theirs from the hub when it next loads its catalog, by
-- the rule that named them until now (the SQL cannot derive a method name).
CREATE TABLE addresses (
	source  TEXT NOT NULL,
	name    TEXT NOT NULL,              -- the upstream MCP name
	js_name TEXT NOT NULL,              -- the method name
	at      INTEGER NOT NULL,           -- unix ms, when it was given
	PRIMARY KEY (source, name),
	UNIQUE (source, js_name)
);
