// Package quietlocale keeps the GUI toolkit from logging an error on every
// command under the C locale.
//
// Fyne reads the locale when its lang package is initialized, before main
// runs, and cannot parse "C.UTF-8" or "POSIX.UTF-8" (the default of Debian
// containers and many CI machines): each run printed "Error parsing user
// locale C". This package has no dependencies outside the standard library
// and its import path sorts before fyne.io, so Go initializes it first: its
// init sets LANGUAGE=en for such a locale, and Restore, called at the start
// of main, removes it again so child processes see the environment as it
// was.
package quietlocale

import (
	"os"
	"strings"
)

var set bool

func init() {
	if needsLanguage(os.Getenv) {
		set = os.Setenv("LANGUAGE", "en") == nil
	}
}

// needsLanguage reports whether the locale is C or POSIX with a codeset
// and no LANGUAGE list overrides it. A bare "C" or "POSIX" is understood.
func needsLanguage(getenv func(string) string) bool {
	if getenv("LANGUAGE") != "" {
		return false
	}
	var loc string
	for _, k := range []string{"LC_ALL", "LC_MESSAGES", "LANG"} {
		if loc = getenv(k); loc != "" {
			break
		}
	}
	base, _, hasCodeset := strings.Cut(loc, ".")
	return hasCodeset && (base == "C" || base == "POSIX")
}

// Restore removes the LANGUAGE variable init set, if it set one.
func Restore() {
	if set {
		os.Unsetenv("LANGUAGE")
		set = false
	}
}
