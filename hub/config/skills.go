package config

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// SkillsConfig is config.json's "skills": {"paths": ["~/.claude/skills"]}:
// folders whose subfolders are skills, read after the home's own. A path
// starts with "~/" or is absolute.
type SkillsConfig struct {
	Paths []string // expanded, absolute

	raw json.RawMessage // as written, kept on save
}

// parseSkillsConfig reads config.json's "skills" object.
func parseSkillsConfig(raw json.RawMessage, add func(string, string, ...any)) SkillsConfig {
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(raw, &fields); err != nil || fields == nil {
		add("skills", "must be an object such as {\"paths\": [\"~/.claude/skills\"]}")
		return SkillsConfig{}
	}
	sc := SkillsConfig{raw: raw}
	for _, k := range sortedKeys(fields) {
		if k != "paths" {
			add("skills."+k, "unknown key; skills takes paths, a list of folders of skills")
			continue
		}
		var paths []string
		if err := json.Unmarshal(fields[k], &paths); err != nil {
			add("skills.paths", "must be a list of folders, such as [\"~/.claude/skills\"]")
			continue
		}
		for i, p := range paths {
			at := fmt.Sprintf("skills.paths[%d]", i)
			switch {
			case strings.TrimSpace(p) == "":
				add(at, "empty; name a folder of skills")
				continue
			case p == "~" || strings.HasPrefix(p, "~/"):
				home, err := os.UserHomeDir()
				if err != nil {
					add(at, "%q: the home folder is not known: %v", p, err)
					continue
				}
				p = filepath.Join(home, strings.TrimPrefix(p, "~"))
			case !filepath.IsAbs(p):
				add(at, "%q is relative; write an absolute path or one starting with ~/", p)
				continue
			}
			sc.Paths = append(sc.Paths, filepath.Clean(p))
		}
	}
	return sc
}

// skillPathsWritten is skills.paths as written in config.json: absolute,
// or starting with ~/.
func (sc SkillsConfig) skillPathsWritten() []string {
	var fields struct {
		Paths []string `json:"paths"`
	}
	if sc.raw != nil {
		_ = json.Unmarshal(sc.raw, &fields)
	}
	return fields.Paths
}

// setSkillPaths makes written skills.paths, read as config.json's are.
func (c *Config) setSkillPaths(file string, written []string) error {
	raw, err := json.Marshal(map[string][]string{"paths": written})
	if err != nil {
		return err
	}
	var errs Errors
	sc := parseSkillsConfig(raw, func(key, format string, args ...any) {
		errs = append(errs, &Error{File: file, Key: key, Problem: fmt.Sprintf(format, args...)})
	})
	if len(errs) > 0 {
		return errs
	}
	c.Skills = sc
	return nil
}

// AddSkillFolder adds a folder of skills to skills.paths as written (an
// absolute path, or one starting with ~/), after the home's and those
// already listed. A folder listed already is refused.
func (c *Config) AddSkillFolder(file, folder string) error {
	folder = strings.TrimSpace(folder)
	written := c.Skills.skillPathsWritten()
	if err := c.setSkillPaths(file, append(slices.Clone(written), folder)); err != nil {
		return err
	}
	added := c.Skills.Paths[len(c.Skills.Paths)-1]
	if slices.Contains(c.Skills.Paths[:len(c.Skills.Paths)-1], added) {
		_ = c.setSkillPaths(file, written)
		return &Error{File: file, Key: "skills.paths", Problem: fmt.Sprintf("%s is listed already", added)}
	}
	return nil
}

// RemoveSkillFolder removes the folder of skills at dir (as read: absolute)
// from skills.paths; the folder and its skills stay on disk.
func (c *Config) RemoveSkillFolder(file, dir string) error {
	written := c.Skills.skillPathsWritten()
	var keep []string
	for i, w := range written {
		if i < len(c.Skills.Paths) && c.Skills.Paths[i] == filepath.Clean(dir) {
			continue
		}
		keep = append(keep, w)
	}
	if len(keep) == len(written) {
		return &Error{File: file, Key: "skills.paths", Problem: fmt.Sprintf("%s is not listed", dir)}
	}
	return c.setSkillPaths(file, keep)
}
