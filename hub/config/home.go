package config

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
)

// SecureHome makes the home its owner's alone: the folder and logs/ 0700,
// config.json, the lock and the logs 0600 (the store sets its own files),
// whatever an older version or the person's umask left. The socket is made
// 0600 by Listen. Windows relies on the profile folder's ACL.
func SecureHome(p Paths) error {
	if runtime.GOOS == "windows" {
		return nil
	}
	fix := func(path string, mode os.FileMode, dir bool) error {
		fi, err := os.Lstat(path)
		if errors.Is(err, os.ErrNotExist) {
			return nil
		}
		if err != nil {
			return err
		}
		if fi.Mode()&os.ModeSymlink != 0 || fi.IsDir() != dir || fi.Mode().Perm() == mode {
			return nil // a link is left alone: its target is not ours to change
		}
		if err := os.Chmod(path, mode); err != nil {
			return fmt.Errorf("restricting %s to its owner: %w", path, err)
		}
		return nil
	}
	if err := fix(p.Home, 0o700, true); err != nil {
		return err
	}
	if err := fix(p.Logs(), 0o700, true); err != nil {
		return err
	}
	logs, _ := filepath.Glob(filepath.Join(p.Logs(), "*"))
	for _, f := range append([]string{p.Config(), p.Lock()}, logs...) {
		if err := fix(f, 0o600, false); err != nil {
			return err
		}
	}
	return nil
}
