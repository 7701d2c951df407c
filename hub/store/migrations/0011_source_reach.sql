-- Where each source last reached (config.Source.ReachKey: an MCP server's
-- origin, a program's command line): when it reaches another place, the
-- consent pinned to its tools was given to what it reached before, and the
-- pins are marked moved (CatalogTx.MovePins) until the person accepts the
-- tools again. A row outlives its source, so a source removed and added
-- back elsewhere is seen to have moved.
CREATE TABLE source_reach (
	source TEXT NOT NULL PRIMARY KEY,
	reach  TEXT NOT NULL,
	at     INTEGER NOT NULL             -- unix ms
);
