package main

import (
	"context"
	"errors"
	"log/slog"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"capabilities.sh/capabilities/hub/localapi"
)

// replaceOlderHub stops the hub of this home when this binary should
// replace it, so that the shim starts this one: after `make install` put a
// new binary where the running hub's was, or when this binary's version is
// a newer release. The hub stops as on `hub stop`: runs waiting for a
// person stay in the store, and other clients' shims reconnect.
func replaceOlderHub(ctx context.Context, e *env, log *slog.Logger) {
	c, err := e.client(ctx)
	if err != nil {
		return
	}
	defer c.Close()
	st, err := c.Status(ctx)
	if err != nil {
		return
	}
	if !shouldReplace(st.Version, st.Exe, version, e.Exe) {
		return
	}
	log.Info("replacing the running hub with this binary", "running", st.Version, "pid", st.PID, "this", version)
	if err := c.Stop(ctx); err != nil {
		log.Warn("stopping the older hub", "error", err)
		return
	}
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		c2, err := e.client(ctx)
		if errors.Is(err, localapi.ErrNoHub) {
			return
		}
		if c2 != nil {
			c2.Close()
		}
		if sleepCtx(ctx, 50*time.Millisecond) != nil {
			return
		}
	}
	log.Warn("the older hub did not stop within 10s; using it")
}

func sleepCtx(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

// shouldReplace decides whether a shim of version mine at path myExe
// replaces a running hub of version running from runningExe: when the
// versions differ and both run the same path (the file there was replaced
// since the hub started), or when mine is a newer release (X.Y.Z). Two
// different binaries of versions that do not compare (commit hashes) leave
// each other's hub alone, so they never take turns replacing it.
func shouldReplace(running, runningExe, mine, myExe string) bool {
	if running == "" || running == mine {
		return false
	}
	if runningExe != "" && myExe != "" && filepath.Clean(runningExe) == filepath.Clean(myExe) {
		return true
	}
	a, okA := parseRelease(running)
	b, okB := parseRelease(mine)
	if !okA || !okB {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return b[i] > a[i]
		}
	}
	return false
}

// parseRelease reads "X.Y.Z" (with an optional leading v and any suffix
// after "-" or "+") as three numbers.
func parseRelease(v string) ([3]int, bool) {
	var out [3]int
	v = strings.TrimPrefix(v, "v")
	if i := strings.IndexAny(v, "-+"); i >= 0 {
		v = v[:i]
	}
	parts := strings.Split(v, ".")
	if len(parts) != 3 {
		return out, false
	}
	for i, p := range parts {
		n, err := strconv.Atoi(p)
		if err != nil || n < 0 {
			return out, false
		}
		out[i] = n
	}
	return out, true
}
