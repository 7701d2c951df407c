package store

// The tool catalog: every listed tool of every source with its definition,
// the pins consent is bound to, and the addresses tools are called by.
//
// A pin holds, per tool, the definition the person consented to or first
// saw; it outlives its tool, so a tool removed and added back with another
// definition is changed. An address (the tool's method name in its
// source's namespace) is given once and never to another tool. The
// catalog's writes that must see each other go in one CatalogTx.

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"
)

// Tool is a listed tool as stored, with its pin.
type Tool struct {
	Source     string
	Name       string // the upstream MCP name
	Definition []byte // JSON
	Hash       string
	Updated    time.Time
	// Pinned is the hash of the pinned definition, "" when there is no pin;
	// PinnedDefinition is its JSON, nil when it was not kept.
	Pinned           string
	PinnedDefinition []byte
}

// Tools returns every stored tool with its pin, by source and name.
func (db *DB) Tools(ctx context.Context) ([]Tool, error) {
	return db.tools(ctx, true)
}

// ToolHeads is Tools without the definitions (Definition and
// PinnedDefinition are nil), which SQLite then does not read: for a
// reader that has most of them already, and reads the others with
// ToolDefinition.
func (db *DB) ToolHeads(ctx context.Context) ([]Tool, error) {
	return db.tools(ctx, false)
}

func (db *DB) tools(ctx context.Context, defs bool) ([]Tool, error) {
	cols := "NULL, NULL"
	if defs {
		cols = "t.definition, p.definition"
	}
	rows, err := db.sql.QueryContext(ctx, `SELECT t.source, t.name, t.hash, t.updated, COALESCE(p.hash, ''), `+cols+`
		FROM tools t LEFT JOIN pins p ON p.source = t.source AND p.name = t.name ORDER BY t.source, t.name`)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []Tool
	for rows.Next() {
		var t Tool
		var updated int64
		var def, pinnedDef sql.NullString
		if err := rows.Scan(&t.Source, &t.Name, &t.Hash, &updated, &t.Pinned, &def, &pinnedDef); err != nil {
			return nil, err
		}
		t.Updated = time.UnixMilli(updated)
		if def.Valid {
			t.Definition = []byte(def.String)
		}
		if pinnedDef.Valid {
			t.PinnedDefinition = []byte(pinnedDef.String)
		}
		out = append(out, t)
	}
	return out, rows.Err()
}

// ToolDefinition fills in t's Definition and PinnedDefinition, as Tools
// reads them, for the tool whose Source, Name and Hash t has: a tool
// stored again since has none (sql.ErrNoRows).
func (db *DB) ToolDefinition(ctx context.Context, t *Tool) error {
	var def string
	var pinnedDef sql.NullString
	err := db.sql.QueryRowContext(ctx, `SELECT t.definition, p.definition
		FROM tools t LEFT JOIN pins p ON p.source = t.source AND p.name = t.name
		WHERE t.source = ? AND t.name = ? AND t.hash = ? AND COALESCE(p.hash, '') = ?`, t.Source, t.Name, t.Hash, t.Pinned).Scan(&def, &pinnedDef)
	if err != nil {
		return err
	}
	t.Definition = []byte(def)
	if pinnedDef.Valid {
		t.PinnedDefinition = []byte(pinnedDef.String)
	}
	return nil
}

// Pin asks PinTools to pin a tool to the stored definition with Hash.
type Pin struct {
	Source, Name string
	// Address is the tool's address, whose remembered allows for the
	// definition Was (its pin until now) move to Hash.
	Address string
	Hash    string
	Was     string
}

// PinTools pins each tool to the definition with its Hash, when that is
// still the tool's stored definition, and moves the remembered allows given
// for its earlier pin (Was, when set and another hash) to the new one, all
// in one transaction. It reports, per pin, whether it moved: false when the
// tool was pinned there already or its definition moved on.
func (db *DB) PinTools(ctx context.Context, pins []Pin, now time.Time) ([]bool, error) {
	tx, err := db.sql.BeginTx(ctx, nil)
	if err != nil {
		return nil, fmt.Errorf("pinning tool definitions: %w", err)
	}
	defer tx.Rollback()
	moved := make([]bool, len(pins))
	for i, p := range pins {
		res, err := tx.ExecContext(ctx, `INSERT INTO pins (source, name, hash, definition, at)
			SELECT source, name, hash, definition, ? FROM tools WHERE source = ? AND name = ? AND hash = ?
			ON CONFLICT (source, name) DO UPDATE SET hash = excluded.hash, definition = excluded.definition, at = excluded.at
			WHERE pins.hash != excluded.hash OR pins.definition IS NULL`,
			now.UnixMilli(), p.Source, p.Name, p.Hash)
		if err != nil {
			return nil, fmt.Errorf("pinning %s: %w", p.Address, err)
		}
		if n, _ := res.RowsAffected(); n == 0 {
			continue // pinned already, or the definition moved on
		}
		moved[i] = true
		if p.Was != "" && p.Was != p.Hash {
			if _, err := tx.ExecContext(ctx, `UPDATE OR REPLACE decisions SET hash = ? WHERE address = ? AND mode = 'allow' AND hash = ?`,
				p.Hash, p.Address, p.Was); err != nil {
				return nil, fmt.Errorf("moving remembered allows of %s: %w", p.Address, err)
			}
		}
	}
	if err := tx.Commit(); err != nil {
		return nil, fmt.Errorf("pinning tool definitions: %w", err)
	}
	return moved, nil
}

// SetPin pins tool name of source to the definition def with hash, when
// it has a pin.
func (db *DB) SetPin(ctx context.Context, source, name, hash string, def []byte, now time.Time) error {
	_, err := db.sql.ExecContext(ctx, `UPDATE pins SET hash = ?, definition = ?, at = ? WHERE source = ? AND name = ?`,
		hash, string(def), now.UnixMilli(), source, name)
	return err
}

// Addresses returns every stored address, by source and MCP name.
func (db *DB) Addresses(ctx context.Context) (map[string]map[string]string, error) {
	rows, err := db.sql.QueryContext(ctx, addressesQuery)
	return scanAddresses(rows, err)
}

const addressesQuery = `SELECT source, name, js_name FROM addresses`

func scanAddresses(rows *sql.Rows, err error) (map[string]map[string]string, error) {
	if err != nil {
		return nil, fmt.Errorf("reading addresses: %w", err)
	}
	defer rows.Close()
	out := map[string]map[string]string{}
	for rows.Next() {
		var src, name, js string
		if err := rows.Scan(&src, &name, &js); err != nil {
			return nil, fmt.Errorf("reading addresses: %w", err)
		}
		if out[src] == nil {
			out[src] = map[string]string{}
		}
		out[src][name] = js
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("reading addresses: %w", err)
	}
	return out, nil
}

// CatalogTx is one transaction over the catalog's tools, pins and
// addresses, for writes that depend on what it reads: another process on
// the home may write between two transactions. Its methods return the
// database's errors as they are; the caller says what it was doing.
// Commit or Rollback ends it; Rollback after Commit does nothing.
type CatalogTx struct {
	tx *sql.Tx
}

// BeginCatalog starts a CatalogTx.
func (db *DB) BeginCatalog(ctx context.Context) (*CatalogTx, error) {
	tx, err := db.sql.BeginTx(ctx, nil)
	if err != nil {
		return nil, err
	}
	return &CatalogTx{tx: tx}, nil
}

// Commit commits the transaction.
func (c *CatalogTx) Commit() error { return c.tx.Commit() }

// Rollback abandons the transaction, unless it was committed.
func (c *CatalogTx) Rollback() error { return c.tx.Rollback() }

// Sources returns the sources that have stored tools.
func (c *CatalogTx) Sources(ctx context.Context) ([]string, error) {
	rows, err := c.tx.QueryContext(ctx, `SELECT DISTINCT source FROM tools`)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var s string
		if err := rows.Scan(&s); err != nil {
			return nil, err
		}
		out = append(out, s)
	}
	return out, rows.Err()
}

// DropSource deletes the tools of source. Their pins and addresses stay:
// a source added back is checked against them.
func (c *CatalogTx) DropSource(ctx context.Context, source string) error {
	_, err := c.tx.ExecContext(ctx, `DELETE FROM tools WHERE source = ?`, source)
	return err
}

// Hashes returns the definition hash of each stored tool of source, by
// name.
func (c *CatalogTx) Hashes(ctx context.Context, source string) (map[string]string, error) {
	rows, err := c.tx.QueryContext(ctx, `SELECT name, hash FROM tools WHERE source = ?`, source)
	return scanNameHashes(rows, err)
}

// scanNameHashes reads rows of a name and a hash into a map by name.
func scanNameHashes(rows *sql.Rows, err error) (map[string]string, error) {
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := map[string]string{}
	for rows.Next() {
		var name, hash string
		if err := rows.Scan(&name, &hash); err != nil {
			return nil, err
		}
		out[name] = hash
	}
	return out, rows.Err()
}

// PinHashes returns the hash of each pin of source, by tool name.
func (c *CatalogTx) PinHashes(ctx context.Context, source string) (map[string]string, error) {
	rows, err := c.tx.QueryContext(ctx, `SELECT name, hash FROM pins WHERE source = ?`, source)
	return scanNameHashes(rows, err)
}

// PutTool stores tool name of source with its definition def and hash,
// first seen now when it is new.
func (c *CatalogTx) PutTool(ctx context.Context, source, name string, def []byte, hash string, now time.Time) error {
	ms := now.UnixMilli()
	_, err := c.tx.ExecContext(ctx, `INSERT INTO tools (source, name, definition, hash, first_seen, updated)
				VALUES (?, ?, ?, ?, ?, ?)
				ON CONFLICT (source, name) DO UPDATE SET definition = excluded.definition, hash = excluded.hash, updated = excluded.updated`,
		source, name, string(def), hash, ms, ms)
	return err
}

// KeepDefinition stores def as tool name of source's definition when the
// tool's hash is still hash and its stored definition has other bytes: the
// same definition written another way (its schemas' members as listed,
// where the store kept them sorted before). It reports whether it wrote.
func (c *CatalogTx) KeepDefinition(ctx context.Context, source, name string, def []byte, hash string) (bool, error) {
	res, err := c.tx.ExecContext(ctx, `UPDATE tools SET definition = ? WHERE source = ? AND name = ? AND hash = ? AND definition <> ?`,
		string(def), source, name, hash, string(def))
	if err != nil {
		return false, err
	}
	n, err := res.RowsAffected()
	return n > 0, err
}

// DropTool deletes tool name of source. Its pin stays: a tool added back
// with another definition is changed.
func (c *CatalogTx) DropTool(ctx context.Context, source, name string) error {
	_, err := c.tx.ExecContext(ctx, `DELETE FROM tools WHERE source = ? AND name = ?`, source, name)
	return err
}

// PinFirst pins tool name of source to the definition def with hash,
// unless it has a pin.
func (c *CatalogTx) PinFirst(ctx context.Context, source, name, hash string, def []byte, now time.Time) error {
	_, err := c.tx.ExecContext(ctx, `INSERT INTO pins (source, name, hash, definition, at) VALUES (?, ?, ?, ?, ?)
				ON CONFLICT (source, name) DO NOTHING`, source, name, hash, string(def), now.UnixMilli())
	return err
}

// UnseenPin is the hash of the pin a source's tool gets when it is listed
// for the first time after some of the source's pins were dropped
// (DropRetiredPins): a definition no other is, so the tool is changed
// until the person accepts it, as one whose pin went would have been.
const UnseenPin = "unseen"

// PinUnseen pins tool name of source to UnseenPin, with no definition,
// unless it has a pin.
func (c *CatalogTx) PinUnseen(ctx context.Context, source, name string, now time.Time) error {
	_, err := c.tx.ExecContext(ctx, `INSERT INTO pins (source, name, hash, definition, at) VALUES (?, ?, ?, NULL, ?)
				ON CONFLICT (source, name) DO NOTHING`, source, name, UnseenPin, now.UnixMilli())
	return err
}

// DropRetiredPins keeps the pins of the tools and skills source no longer
// lists (retired) up to keep of them and maxBytes of their definitions, the
// newest pinned first, and deletes the others; it reports whether it
// deleted any, and then notes it for the source (PinsDropped) at now. The
// pins of a source that lists new names at every listing grow so no
// further than one listing may.
func (c *CatalogTx) DropRetiredPins(ctx context.Context, source string, keep int, maxBytes int64, now time.Time) (bool, error) {
	res, err := c.tx.ExecContext(ctx, `DELETE FROM pins WHERE source = ? AND name IN (
			SELECT name FROM (
				SELECT p.name, ROW_NUMBER() OVER w AS n, SUM(COALESCE(length(p.definition), 0)) OVER w AS bytes
				FROM pins p WHERE p.source = ?
					AND NOT EXISTS (SELECT 1 FROM tools t WHERE t.source = p.source AND t.name = p.name)
					AND NOT EXISTS (SELECT 1 FROM skills s WHERE s.source = p.source AND 'skill:' || s.path = p.name)
				WINDOW w AS (ORDER BY p.at DESC, p.name))
			WHERE n > ? OR bytes > ?)`, source, source, keep, maxBytes)
	if err != nil {
		return false, err
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return false, nil
	}
	_, err = c.tx.ExecContext(ctx, `INSERT INTO pins_dropped (source, at) VALUES (?, ?)
			ON CONFLICT (source) DO UPDATE SET at = excluded.at`, source, now.UnixMilli())
	return true, err
}

// MovedPin prefixes the hash of a pin whose source has since reached
// another place (Reach): the tool's definition, the same or not, is
// changed until the person accepts it where its source reaches now.
const MovedPin = "moved:"

// Reach records where source reaches now (config.Source.ReachKey). When
// it reached somewhere else before (the first record is no move), the
// pins of its tools are marked (MovedPin), their definitions kept for the
// change to show; a skill's pin, which gates no call, is left as it is.
func (c *CatalogTx) Reach(ctx context.Context, source, reach string, now time.Time) error {
	var was string
	err := c.tx.QueryRowContext(ctx, `SELECT reach FROM source_reach WHERE source = ?`, source).Scan(&was)
	switch {
	case errors.Is(err, sql.ErrNoRows):
	case err != nil:
		return err
	case was == reach:
		return nil
	default:
		if _, err := c.tx.ExecContext(ctx, `UPDATE pins SET hash = ? || hash WHERE source = ? AND name NOT LIKE 'skill:%' AND hash NOT LIKE ? || '%'`,
			MovedPin, source, MovedPin); err != nil {
			return err
		}
	}
	_, err = c.tx.ExecContext(ctx, `INSERT INTO source_reach (source, reach, at) VALUES (?, ?, ?)
			ON CONFLICT (source) DO UPDATE SET reach = excluded.reach, at = excluded.at`, source, reach, now.UnixMilli())
	return err
}

// PinsDropped reports whether DropRetiredPins ever deleted pins of source.
func (c *CatalogTx) PinsDropped(ctx context.Context, source string) (bool, error) {
	var n int
	err := c.tx.QueryRowContext(ctx, `SELECT COUNT(*) FROM pins_dropped WHERE source = ?`, source).Scan(&n)
	return n > 0, err
}

// ErrNoPin reports a tool or skill without a pin.
var ErrNoPin = errors.New("no pin")

// Pin returns the pin of tool name of source: its hash, and its definition
// (nil when it was not kept). It fails with ErrNoPin when there is none.
func (c *CatalogTx) Pin(ctx context.Context, source, name string) (hash string, def []byte, err error) {
	var d sql.NullString
	err = c.tx.QueryRowContext(ctx, `SELECT hash, definition FROM pins WHERE source = ? AND name = ?`, source, name).Scan(&hash, &d)
	if errors.Is(err, sql.ErrNoRows) {
		return "", nil, ErrNoPin
	}
	if err != nil {
		return "", nil, err
	}
	if d.Valid {
		def = []byte(d.String)
	}
	return hash, def, nil
}

// PinnedServers returns the server of each of source's pins whose kept
// definition is an OpenAPI operation's (it has a request with a server),
// newest pin first. SQLite reads the one member: a catalog's pins hold
// as many bytes as its tools.
func (c *CatalogTx) PinnedServers(ctx context.Context, source string) ([]string, error) {
	rows, err := c.tx.QueryContext(ctx, `SELECT json_extract(definition, '$.request.server') FROM pins
		WHERE source = ? AND json_valid(definition) AND json_type(definition, '$.request.server') = 'text'
		ORDER BY at DESC`, source)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var server string
		if err := rows.Scan(&server); err != nil {
			return nil, err
		}
		out = append(out, server)
	}
	return out, rows.Err()
}

// MovePin moves the pin of tool name of source from the definition with
// hash from to def with hash to. It reports false, and moves nothing, when
// the tool is pinned elsewhere.
func (c *CatalogTx) MovePin(ctx context.Context, source, name, from, to string, def []byte, now time.Time) (bool, error) {
	res, err := c.tx.ExecContext(ctx, `UPDATE pins SET hash = ?, definition = ?, at = ? WHERE source = ? AND name = ? AND hash = ?`,
		to, string(def), now.UnixMilli(), source, name, from)
	if err != nil {
		return false, err
	}
	n, _ := res.RowsAffected()
	return n > 0, nil
}

// MoveToolAllows moves the remembered allows given for definition from of
// tool name of source, at its stored address in namespace, to definition
// to. It reports how many moved.
func (c *CatalogTx) MoveToolAllows(ctx context.Context, namespace, source, name, from, to string) (int64, error) {
	res, err := c.tx.ExecContext(ctx, `UPDATE OR REPLACE decisions SET hash = ? WHERE mode = 'allow' AND hash = ?
		AND address IN (SELECT ? || '.' || js_name FROM addresses WHERE source = ? AND name = ?)`,
		to, from, namespace, source, name)
	if err != nil {
		return 0, err
	}
	return res.RowsAffected()
}

// Addresses is DB.Addresses in the transaction.
func (c *CatalogTx) Addresses(ctx context.Context) (map[string]map[string]string, error) {
	rows, err := c.tx.QueryContext(ctx, addressesQuery)
	return scanAddresses(rows, err)
}

// GiveAddress gives tool name of source the method name js. It fails when
// the tool has an address, or another tool of the source has js.
func (c *CatalogTx) GiveAddress(ctx context.Context, source, name, js string, now time.Time) error {
	_, err := c.tx.ExecContext(ctx, `INSERT INTO addresses (source, name, js_name, at) VALUES (?, ?, ?, ?)`, source, name, js, now.UnixMilli())
	return err
}

// DropRetiredAddresses keeps the addresses of at most keep tools source
// no longer lists (the newest given), and deletes the others.
func (c *CatalogTx) DropRetiredAddresses(ctx context.Context, source string, keep int) error {
	_, err := c.tx.ExecContext(ctx, `DELETE FROM addresses WHERE source = ? AND name IN (
			SELECT a.name FROM addresses a WHERE a.source = ?
				AND NOT EXISTS (SELECT 1 FROM tools t WHERE t.source = a.source AND t.name = a.name)
			ORDER BY a.at DESC, a.name LIMIT -1 OFFSET ?)`, source, source, keep)
	return err
}
