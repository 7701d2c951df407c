package store

import (
	"context"
	"fmt"
	"time"
)

// ListedSkill is one skill a source listed last: its path, its skills/list
// entry as JSON, and when that entry was first listed.
type ListedSkill struct {
	Source string
	Path   string
	Entry  []byte
	Seen   time.Time
}

// SetSkills replaces the skills kept for source with skills (none forgets
// them all).
func (db *DB) SetSkills(ctx context.Context, source string, skills []ListedSkill) error {
	tx, err := db.sql.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("keeping the skills of %s: %w", source, err)
	}
	defer tx.Rollback()
	if _, err := tx.ExecContext(ctx, `DELETE FROM skills WHERE source = ?`, source); err != nil {
		return fmt.Errorf("keeping the skills of %s: %w", source, err)
	}
	for _, s := range skills {
		if _, err := tx.ExecContext(ctx, `INSERT INTO skills (source, path, entry, seen) VALUES (?, ?, ?, ?)`,
			source, s.Path, string(s.Entry), s.Seen.UnixMilli()); err != nil {
			return fmt.Errorf("keeping skill %s of %s: %w", s.Path, source, err)
		}
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("keeping the skills of %s: %w", source, err)
	}
	return nil
}

// Skills returns the skills every source listed last, by source and path.
func (db *DB) Skills(ctx context.Context) ([]ListedSkill, error) {
	rows, err := db.sql.QueryContext(ctx, `SELECT source, path, entry, seen FROM skills ORDER BY source, path`)
	if err != nil {
		return nil, fmt.Errorf("reading the kept skills: %w", err)
	}
	defer rows.Close()
	var out []ListedSkill
	for rows.Next() {
		var s ListedSkill
		var entry string
		var seen int64
		if err := rows.Scan(&s.Source, &s.Path, &entry, &seen); err != nil {
			return nil, fmt.Errorf("reading the kept skills: %w", err)
		}
		s.Entry, s.Seen = []byte(entry), time.UnixMilli(seen)
		out = append(out, s)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("reading the kept skills: %w", err)
	}
	return out, nil
}
