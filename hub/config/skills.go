package config

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
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
