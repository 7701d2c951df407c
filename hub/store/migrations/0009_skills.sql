-- The skills each source listed last: its skills/list entries as the hub
-- kept them (skills.Registry.Refresh), so that a hub that has not listed
-- them yet (the CLI's own, or one starting) knows them and their changes,
-- as the tools table keeps tools. Pins stay in pins (skill:<path>).
CREATE TABLE skills (
	source TEXT NOT NULL,
	path   TEXT NOT NULL,           -- the skill path (acme/billing/refunds)
	entry  TEXT NOT NULL,           -- the skills/list entry as JSON
	seen   INTEGER NOT NULL,        -- unix ms: when this entry was first listed
	PRIMARY KEY (source, path)
);
