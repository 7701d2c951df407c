-- Consent is pinned to tool definitions.
--
-- pins holds, per tool, the definition the person consented to or first saw:
-- a tool whose listed definition differs from its pin is changed, and its
-- calls ask until the person accepts the new one. A pin outlives its tool, so
-- a tool removed and added back with another definition is changed too.
CREATE TABLE pins (
	source     TEXT NOT NULL,
	name       TEXT NOT NULL,           -- the upstream MCP name
	hash       TEXT NOT NULL,           -- the pinned definition's hash
	definition TEXT,                    -- its JSON; NULL when it was not kept
	at         INTEGER NOT NULL,        -- unix ms
	PRIMARY KEY (source, name)
);

-- A tool with an open change was last accepted at the change's old hash (the
-- old definition was never kept); every other tool is pinned where it is.
INSERT INTO pins (source, name, hash, definition, at)
SELECT t.source, t.name,
	COALESCE((SELECT c.old_hash FROM tool_changes c WHERE c.source = t.source AND c.name = t.name
		AND c.accepted IS NULL AND c.old_hash != '' ORDER BY c.id LIMIT 1), t.hash),
	CASE WHEN EXISTS (SELECT 1 FROM tool_changes c WHERE c.source = t.source AND c.name = t.name
		AND c.accepted IS NULL AND c.old_hash != '') THEN NULL ELSE t.definition END,
	t.updated
FROM tools t;

DROP TABLE tool_changes;

-- Remembered decisions ("always allow", "always deny") are rules with a
-- scope. An allow holds for one address, one definition (hash) and one
-- connection; a deny for an address, on one connection or on all (NULL).
-- connection '' is a source without connections.
CREATE TABLE decisions (
	id         INTEGER PRIMARY KEY AUTOINCREMENT,
	address    TEXT NOT NULL,
	connection TEXT,                    -- NULL: every connection (denies only)
	hash       TEXT NOT NULL DEFAULT '', -- allow: the definition; '' until pinned, or for a deny
	mode       TEXT NOT NULL,           -- allow | deny
	channel    TEXT NOT NULL,           -- dialog | client | cli
	at         INTEGER NOT NULL
);
CREATE UNIQUE INDEX decisions_scope ON decisions (address, COALESCE(connection, char(0)), hash, mode);

-- Today's remembered decisions keep their address. A deny keeps holding on
-- every connection; an allow takes the connection of the approval it was
-- given on (none found: it holds for no connection, and the person is asked
-- again). Its definition is pinned by the hub when it next loads its catalog
-- (the SQL cannot name a tool's address).
INSERT OR IGNORE INTO decisions (address, connection, hash, mode, channel, at)
SELECT r.address,
	CASE WHEN r.mode = 'allow' THEN COALESCE((SELECT p.connection FROM pending p
		WHERE p.address = r.address AND p.remember = 1 AND p.decision = 'allow'
		ORDER BY p.decided DESC LIMIT 1), '') END,
	'', r.mode, r.channel, r.at
FROM remembered r;

DROP TABLE remembered;

-- The definition an approval was asked for, and what changed in it since the
-- person last accepted it ('' when nothing did).
ALTER TABLE pending ADD COLUMN def_hash TEXT NOT NULL DEFAULT '';
ALTER TABLE pending ADD COLUMN change TEXT NOT NULL DEFAULT '';
