package config

import (
	"encoding/json"
	"fmt"
	"sort"

	"capabilities.sh/capabilities/hub/secrets"
)

// Import is what importing a client's MCP config yields: sources whose
// secret values were replaced by ${secret:NAME} references, and the secrets
// themselves, keyed by keychain key, to be stored before the config is saved.
type Import struct {
	Sources map[string]*Source
	Secrets map[string]string // keychain key -> secret
	Moved   []string          // "source.env.VAR" of each value moved into the keychain
	// Refused are the file's sources whose names cannot be namespaces; they
	// are not imported.
	Refused Errors
}

// ImportConnection is the connection name imported secrets are filed under.
const ImportConnection = "default"

// ParseImport reads a client config ("mcpServers") or a capabilities config
// ("sources") and prepares its sources for import: every env or header value
// that looks like a secret moves into the keychain under the source's
// "default" connection.
func ParseImport(file string, data []byte) (*Import, error) {
	// VS Code's mcp.json is JSON with comments and trailing commas.
	data, err := StandardJSON(data)
	if err != nil {
		return nil, &Error{File: file, Problem: "not valid JSON: " + err.Error()}
	}
	var probe map[string]json.RawMessage
	if err := json.Unmarshal(data, &probe); err != nil {
		return nil, &Error{File: file, Problem: "not valid JSON: " + JSONProblem(data, err)}
	}
	// Only the server lists are read: the rest of a client's file is the
	// client's own (Claude Code keeps its whole state beside mcpServers).
	servers := map[string]json.RawMessage{}
	for _, k := range []string{"mcpServers", "sources"} {
		if raw, ok := probe[k]; ok {
			servers[k] = raw
		}
	}
	if len(servers) == 0 {
		// VS Code keeps them under "servers" (mcp.json) or "mcp.servers" (settings.json).
		if raw, ok := probe["servers"]; ok {
			servers["mcpServers"] = raw
		} else if mcp, ok := probe["mcp"]; ok {
			var inner map[string]json.RawMessage
			if json.Unmarshal(mcp, &inner) == nil && inner["servers"] != nil {
				servers["mcpServers"] = inner["servers"]
			}
		}
	}
	if len(servers) == 0 {
		return nil, &Error{File: file, Problem: "no \"mcpServers\" or \"sources\" object to import"}
	}
	data, _ = json.Marshal(servers)
	cfg, err := Parse(file, data)
	if err != nil {
		return nil, err
	}
	imp := &Import{Sources: map[string]*Source{}, Secrets: map[string]string{}, Refused: cfg.Refused()}
	for _, name := range sortedKeys(cfg.Sources) {
		s := cfg.Sources[name]
		moved := false
		move := func(kind string, m map[string]string, dst func(*Connection) *map[string]string) {
			for _, k := range sortedKeys(m) {
				v := m[k]
				if secretRefRE.MatchString(v) || v == "" {
					continue
				}
				if !secrets.LooksSecretName(k) && !secrets.LooksLikeToken(v) {
					continue
				}
				if s.Connections == nil {
					s.Connections = map[string]*Connection{}
				}
				c := s.Connections[ImportConnection]
				if c == nil {
					c = &Connection{}
					s.Connections[ImportConnection] = c
				}
				target := dst(c)
				if *target == nil {
					*target = map[string]string{}
				}
				(*target)[k] = "${secret:" + k + "}"
				imp.Secrets[SecretKey(name, ImportConnection, k)] = v
				imp.Moved = append(imp.Moved, name+"."+kind+"."+k)
				delete(m, k)
				moved = true
			}
		}
		move("env", s.Env, func(c *Connection) *map[string]string { return &c.Env })
		move("headers", s.Headers, func(c *Connection) *map[string]string { return &c.Headers })
		if moved && s.DefaultConnection() == "" {
			s.Connections[ImportConnection].Default = true
		}
		imp.Sources[name] = s
	}
	sort.Strings(imp.Moved)
	return imp, nil
}

// AddSource adds (or with replace, replaces) a source after validating it.
func (c *Config) AddSource(file, name string, s *Source, replace bool) error {
	if _, exists := c.Sources[name]; exists && !replace {
		return &Error{File: file, Key: "sources." + name, Problem: "a source with this name exists; remove it first or pick another name"}
	}
	var errs Errors
	validateSource(name, s, "sources."+name, func(key, format string, args ...any) {
		errs = append(errs, &Error{File: file, Key: key, Problem: fmt.Sprintf(format, args...)})
	})
	// Checked for a source being added, not in a config.json read: one
	// written before keeps loading, and says why it is down.
	if problem := commandProblem(s.Command); s.Command != "" && problem != "" {
		errs = append(errs, &Error{File: file, Key: "sources." + name + ".command", Problem: fmt.Sprintf("%q %s", s.Command, problem)})
	}
	if len(errs) > 0 {
		return errs
	}
	c.Sources[name] = s
	return nil
}

// Validate checks the whole config again, after an edit.
func (c *Config) Validate(file string) error {
	b, err := json.Marshal(c)
	if err != nil {
		return err
	}
	_, err = Parse(file, b)
	return err
}
