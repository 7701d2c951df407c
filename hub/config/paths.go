package config

import "path/filepath"

// Paths are the files of one CAPABILITIES_HOME.
type Paths struct {
	Home string
}

// Config is the hand-editable config.json.
func (p Paths) Config() string { return filepath.Join(p.Home, "config.json") }

// DB is the SQLite database.
func (p Paths) DB() string { return filepath.Join(p.Home, "capabilities.db") }

// Socket is the local API's unix socket (mode 0600).
func (p Paths) Socket() string { return filepath.Join(p.Home, "hub.sock") }

// Logs is the folder for the hub's log files.
func (p Paths) Logs() string { return filepath.Join(p.Home, "logs") }

// Lock is the file whose lock marks the one running hub.
func (p Paths) Lock() string { return filepath.Join(p.Home, "hub.lock") }

// Files is the default sandbox folder for the filesystem reference server.
func (p Paths) Files() string { return filepath.Join(p.Home, "files") }

// ImportOffer is the file that holds an open import offer.
func (p Paths) ImportOffer() string { return filepath.Join(p.Home, "import-offer.json") }

// OpenAPICache is the folder of the OpenAPI documents' parsed operations,
// kept by the document they came from (hub/openapi's cache.go).
func (p Paths) OpenAPICache() string { return filepath.Join(p.Home, "cache", "openapi") }
