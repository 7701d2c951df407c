package packaging

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
)

// AppPaths are where the app is installed: the binary in BinDir, the
// launcher and icons under DataDir (share/).
type AppPaths struct {
	BinDir  string
	DataDir string
}

// InstallPaths are the install folders for the current user: ~/.local/bin
// and $XDG_DATA_HOME (~/.local/share), or, as root, /usr/local/bin and
// /usr/local/share for everyone.
func InstallPaths(home, dataHome string, root bool) AppPaths {
	if root {
		return AppPaths{BinDir: "/usr/local/bin", DataDir: "/usr/local/share"}
	}
	if dataHome == "" {
		dataHome = filepath.Join(home, ".local", "share")
	}
	return AppPaths{BinDir: filepath.Join(home, ".local", "bin"), DataDir: dataHome}
}

// Binary is the installed executable.
func (p AppPaths) Binary() string {
	name := AppName
	if runtime.GOOS == "windows" {
		name += ".exe"
	}
	return filepath.Join(p.BinDir, name)
}

// DesktopFile is the installed launcher.
func (p AppPaths) DesktopFile() string {
	return filepath.Join(p.DataDir, "applications", AppName+".desktop")
}

// Icons are the installed icon files: the PNG and the SVG.
func (p AppPaths) Icons() []string {
	return []string{
		filepath.Join(p.DataDir, "icons", "hicolor", "512x512", "apps", AppID+".png"),
		filepath.Join(p.DataDir, "icons", "hicolor", "scalable", "apps", AppID+".svg"),
	}
}

// InstallApp copies the executable exe to p.Binary(), replacing an older
// one (a running hub keeps its old file until it restarts), writes the
// launcher that runs it and the icons (png, svg). It returns the files
// written. Installing the binary over itself only rewrites the rest.
func InstallApp(p AppPaths, exe string, png, svg []byte) ([]string, error) {
	var written []string
	dst := p.Binary()
	same := false
	if a, err := os.Stat(exe); err != nil {
		return nil, fmt.Errorf("installing: %w", err)
	} else if b, err := os.Stat(dst); err == nil && os.SameFile(a, b) {
		same = true
	}
	if !same {
		if err := copyExecutable(exe, dst); err != nil {
			return nil, err
		}
		written = append(written, dst)
	}
	if runtime.GOOS == "windows" || runtime.GOOS == "darwin" {
		return written, nil // no XDG launcher there
	}
	entry, err := DesktopEntry(AutostartOptions{Exe: dst})
	if err != nil {
		return written, err
	}
	files := map[string][]byte{p.DesktopFile(): entry, p.Icons()[0]: png, p.Icons()[1]: svg}
	for _, path := range []string{p.DesktopFile(), p.Icons()[0], p.Icons()[1]} {
		w, err := write(path, files[path])
		if err != nil {
			return written, fmt.Errorf("installing %s: %w", path, err)
		}
		written = append(written, w...)
	}
	return written, nil
}

// UninstallApp removes the launcher and the icons; it leaves the binary,
// which other homes may still run. Missing files are not an error.
func UninstallApp(p AppPaths) ([]string, error) {
	var removed []string
	for _, path := range append([]string{p.DesktopFile()}, p.Icons()...) {
		err := os.Remove(path)
		if errors.Is(err, os.ErrNotExist) {
			continue
		}
		if err != nil {
			return removed, fmt.Errorf("removing %s: %w", path, err)
		}
		removed = append(removed, path)
	}
	return removed, nil
}

// copyExecutable copies src to dst through a temporary file in dst's
// folder and a rename, so a process running dst keeps the old file and one
// starting meanwhile never runs half a binary.
func copyExecutable(src, dst string) error {
	if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
		return fmt.Errorf("installing: %w", err)
	}
	in, err := os.Open(src)
	if err != nil {
		return fmt.Errorf("installing: %w", err)
	}
	defer in.Close()
	tmp, err := os.CreateTemp(filepath.Dir(dst), "."+filepath.Base(dst)+".*")
	if err != nil {
		return fmt.Errorf("installing: %w", err)
	}
	_, err = io.Copy(tmp, in)
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Chmod(tmp.Name(), 0o755)
	}
	if err == nil {
		err = os.Rename(tmp.Name(), dst)
	}
	if err != nil {
		os.Remove(tmp.Name())
		return fmt.Errorf("installing %s: %w", dst, err)
	}
	return nil
}
