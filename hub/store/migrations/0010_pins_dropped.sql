-- A source's pins of tools and skills it no longer lists are kept up to a
-- bound (CatalogTx.DropRetiredPins); pins_dropped names the sources some of
-- whose pins went, so that what such a source lists for the first time
-- after that is not taken as first seen: it may be a tool whose pin went.
CREATE TABLE pins_dropped (
	source TEXT NOT NULL PRIMARY KEY,
	at     INTEGER NOT NULL             -- unix ms: when pins last went
);
