package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"
)

// Handle is a stored value too large to return inline: a run's result,
// read back with hub.read. It belongs to its run and is deleted with it.
type Handle struct {
	ID      string
	RunID   string
	Kind    string // "string": Value is the string's UTF-8 text; "json": JSON text
	Bytes   int64  // of the value
	Created time.Time
}

// ErrNoHandle reports a handle the store does not hold: never given out
// by this home's hub, or deleted with its run.
var ErrNoHandle = errors.New("no such handle")

// PutHandle stores value under h. The run must be stored already.
func (db *DB) PutHandle(ctx context.Context, h Handle, value []byte) error {
	if value == nil {
		value = []byte{}
	}
	_, err := db.sql.ExecContext(ctx, `INSERT INTO handles (id, run_id, kind, bytes, value, created) VALUES (?, ?, ?, ?, ?, ?)`,
		h.ID, h.RunID, h.Kind, int64(len(value)), value, h.Created.UnixMilli())
	if err != nil {
		return fmt.Errorf("storing handle %s of run %s: %w", h.ID, h.RunID, err)
	}
	return nil
}

// HandleInfo returns handle id without its value.
func (db *DB) HandleInfo(ctx context.Context, id string) (Handle, error) {
	h := Handle{ID: id}
	var created int64
	err := db.sql.QueryRowContext(ctx, `SELECT run_id, kind, bytes, created FROM handles WHERE id = ?`, id).Scan(&h.RunID, &h.Kind, &h.Bytes, &created)
	if errors.Is(err, sql.ErrNoRows) {
		return h, ErrNoHandle
	}
	if err != nil {
		return h, fmt.Errorf("reading handle %s: %w", id, err)
	}
	h.Created = time.UnixMilli(created)
	return h, nil
}

// HandleBytes returns up to n bytes of handle id's value from byte offset
// off (0-based), without reading the rest of it.
func (db *DB) HandleBytes(ctx context.Context, id string, off, n int64) ([]byte, error) {
	var b []byte
	// substr on a BLOB counts bytes, from 1.
	err := db.sql.QueryRowContext(ctx, `SELECT substr(value, ?, ?) FROM handles WHERE id = ?`, off+1, n, id).Scan(&b)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, ErrNoHandle
	}
	if err != nil {
		return nil, fmt.Errorf("reading handle %s: %w", id, err)
	}
	return b, nil
}

// HandleValue returns handle id's whole value.
func (db *DB) HandleValue(ctx context.Context, id string) ([]byte, error) {
	var b []byte
	err := db.sql.QueryRowContext(ctx, `SELECT value FROM handles WHERE id = ?`, id).Scan(&b)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, ErrNoHandle
	}
	if err != nil {
		return nil, fmt.Errorf("reading handle %s: %w", id, err)
	}
	return b, nil
}
