package main

import (
	"io"
	"os"
	"path/filepath"

	"golang.org/x/term"

	"capabilities.sh/capabilities/hub/config"
	"capabilities.sh/capabilities/keychain"
)

// env is everything the commands take from the process: arguments, standard
// streams, environment and well-known folders. processEnv fills it from the
// real process; tests fill it with buffers and temp folders.
type env struct {
	Args   []string // without the program name
	Stdin  io.Reader
	Stdout io.Writer
	Stderr io.Writer
	Getenv func(string) string
	// Exe is the path of this binary, for starting the hub, workers and
	// autostart entries.
	Exe string
	// UserHome is the person's home folder (client configs live there).
	UserHome string
	// UserConfig is the OS user config folder.
	UserConfig string
	// StdinIsTerminal says whether prompts make sense: stdin is a terminal
	// (not merely a character device: /dev/null is one too).
	StdinIsTerminal bool
	// StdoutIsTerminal says whether someone reads stdout on a terminal.
	StdoutIsTerminal bool
	// IsRoot says whether this runs as root (installs go to /usr/local).
	IsRoot bool
}

// personPresent says whether a person sits at this command: a terminal on
// both stdin and stdout. A hub that a client or the login session started
// has neither.
func (e *env) personPresent() bool { return e.StdinIsTerminal && e.StdoutIsTerminal }

func processEnv() *env {
	exe, err := os.Executable()
	if err != nil {
		exe = os.Args[0]
	}
	home, _ := os.UserHomeDir()
	cfg, _ := os.UserConfigDir()
	return &env{
		Args:             os.Args[1:],
		Stdin:            os.Stdin,
		Stdout:           os.Stdout,
		Stderr:           os.Stderr,
		Getenv:           os.Getenv,
		Exe:              exe,
		UserHome:         home,
		UserConfig:       cfg,
		StdinIsTerminal:  term.IsTerminal(int(os.Stdin.Fd())),
		StdoutIsTerminal: term.IsTerminal(int(os.Stdout.Fd())),
		IsRoot:           os.Geteuid() == 0,
	}
}

// home is CAPABILITIES_HOME, or the OS user config folder + /capabilities.
func (e *env) home() string {
	if h := e.Getenv("CAPABILITIES_HOME"); h != "" {
		if abs, err := filepath.Abs(h); err == nil {
			return abs
		}
		return h
	}
	return filepath.Join(e.UserConfig, "capabilities")
}

// keychainServiceEnv names the keychain's base service; tests set it so
// that the binaries they start never touch the person's entries.
const keychainServiceEnv = "CAPABILITIES_KEYCHAIN_SERVICE"

// keychain is the OS keychain of this home: its entries live under the
// service "<base>/<home id>" (base "capabilities", or $CAPABILITIES_KEYCHAIN_SERVICE).
func (e *env) keychain() (*keychain.Home, error) {
	return config.HomeKeychain(config.Paths{Home: e.home()}, keychain.System{Service: e.Getenv(keychainServiceEnv)})
}
