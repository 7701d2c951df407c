package mcpserver

// The Skills extension (io.modelcontextprotocol/skills, SEP-2640), served
// to the hub's own clients: skills/list and skills/get give each local
// skill's entry (its SKILL.md URI, its frontmatter verbatim and every file
// with its sha256 digest and size), and resources/read reads each file by
// its skill://<name>/<file> URI. The methods are go-sdk custom methods; the
// files are one resource template.

import (
	"context"
	"fmt"
	"mime"
	"path"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"capabilities.sh/capabilities/hub/skills"
	"capabilities.sh/capabilities/hub/upstream"
)

// skillTTL is how long a client may take a skill listing, entry or file as
// current: skills are files the person edits, and the digests tell a stale
// copy anyway.
const skillTTL = time.Minute

// skillsPageSize is how many entries one skills/list page holds.
const skillsPageSize = 100

// skillsCapabilities are the capabilities the hub's server declares beside
// its tools: the extension, and resources, which the extension needs.
func skillsCapabilities() *mcp.ServerCapabilities {
	return &mcp.ServerCapabilities{
		Resources:  &mcp.ResourceCapabilities{},
		Extensions: map[string]any{upstream.SkillsExtension: map[string]any{}},
	}
}

// addSkillsExtension registers the extension's methods and the template of
// its files on s.
func (m *server) addSkillsExtension(s *mcp.Server) {
	if err := mcp.AddReceivingCustomMethod(s, "skills/list", m.handleListSkills); err != nil {
		panic(err) // not a standard method name: cannot happen
	}
	if err := mcp.AddReceivingCustomMethod(s, "skills/get", m.handleGetSkill); err != nil {
		panic(err)
	}
	s.AddResourceTemplate(&mcp.ResourceTemplate{
		URITemplate: "skill://{+path}",
		Name:        "skills",
		Description: "The files of the user's skills: skill://<name>/SKILL.md and the files beside it.",
	}, m.readSkillResource)
}

func skillURI(sk *skills.Skill, rel string) string { return "skill://" + sk.Path + "/" + rel }

func skillEntry(sk *skills.Skill) upstream.SkillEntry {
	e := upstream.SkillEntry{URI: skillURI(sk, "SKILL.md"), Frontmatter: sk.Frontmatter}
	for _, f := range sk.Files {
		e.Resources = append(e.Resources, upstream.SkillResource{URI: skillURI(sk, f.Path), Digest: f.Digest, Size: f.Size})
	}
	return e
}

func invalidParams(format string, args ...any) error {
	return &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: fmt.Sprintf(format, args...)}
}

func (m *server) handleListSkills(_ context.Context, _ *mcp.ServerSession, p *upstream.ListSkillsParams) (*upstream.ListSkillsResult, error) {
	skills := m.hub.ServedSkills()
	start := 0
	if p != nil && p.Cursor != "" {
		// The cursor is the URI of the last entry given: entries are in
		// URI order, so a page after an edit neither repeats nor skips one.
		if !strings.HasPrefix(p.Cursor, "skill://") {
			return nil, invalidParams("cursor %q is not one skills/list gave", p.Cursor)
		}
		for start < len(skills) && skillURI(skills[start], "SKILL.md") <= p.Cursor {
			start++
		}
	}
	res := &upstream.ListSkillsResult{ResultType: "complete", Skills: []upstream.SkillEntry{}, TTLMs: int(skillTTL / time.Millisecond), CacheScope: "private"}
	end := min(start+skillsPageSize, len(skills))
	for _, sk := range skills[start:end] {
		res.Skills = append(res.Skills, skillEntry(sk))
	}
	if end < len(skills) {
		res.NextCursor = res.Skills[len(res.Skills)-1].URI
	}
	return res, nil
}

// skillOfURI finds the served skill and file a skill:// URI names.
func (m *server) skillOfURI(uri string) (*skills.Skill, string, bool) {
	rest, ok := strings.CutPrefix(uri, "skill://")
	if !ok {
		return nil, "", false
	}
	name, rel, ok := strings.Cut(rest, "/")
	if !ok {
		return nil, "", false
	}
	for _, sk := range m.hub.ServedSkills() {
		if sk.Address != "skill:"+name {
			continue
		}
		for _, f := range sk.Files {
			if f.Path == rel {
				return sk, rel, true
			}
		}
		return nil, "", false
	}
	return nil, "", false
}

func (m *server) handleGetSkill(_ context.Context, _ *mcp.ServerSession, p *upstream.GetSkillParams) (*upstream.GetSkillResult, error) {
	if p == nil || p.URI == "" {
		return nil, invalidParams("skills/get needs uri, the URI of a skill's SKILL.md")
	}
	sk, rel, ok := m.skillOfURI(p.URI)
	if !ok || rel != "SKILL.md" {
		return nil, invalidParams("No skill is served at %s", p.URI)
	}
	return &upstream.GetSkillResult{ResultType: "complete", Skill: skillEntry(sk), TTLMs: int(skillTTL / time.Millisecond), CacheScope: "private"}, nil
}

// readSkillResource answers resources/read of a skill file: the bytes its
// entry's digest covers, as text when they are UTF-8.
func (m *server) readSkillResource(_ context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
	uri := req.Params.URI
	sk, rel, ok := m.skillOfURI(uri)
	if !ok {
		return nil, mcp.ResourceNotFoundError(uri)
	}
	data, err := m.hub.ReadSkillFile(sk, rel)
	if err != nil {
		return nil, mcp.ResourceNotFoundError(uri)
	}
	c := &mcp.ResourceContents{URI: uri, MIMEType: skillFileType(rel)}
	if utf8.Valid(data) {
		c.Text = string(data)
	} else {
		c.Blob = data
	}
	return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{c}}, nil
}

// skillFileType is the MIME type of a skill file by its name.
func skillFileType(rel string) string {
	ext := path.Ext(rel)
	switch ext {
	case ".md":
		return "text/markdown"
	case "":
		return "text/plain"
	}
	if t := mime.TypeByExtension(ext); t != "" {
		return t
	}
	return "application/octet-stream"
}
