package upstream

// The Skills extension (io.modelcontextprotocol/skills, SEP-2640) on the
// wire, and its client half: the hub's own server serves these types
// (hub/mcpserver), and Upstreams reads an upstream's skills/list with them
// and reads a skill's files with resources/read, for the skills of
// upstream servers.

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// SkillsExtension is the extension's identifier in capabilities.
const SkillsExtension = "io.modelcontextprotocol/skills"

// SkillResource is one file of a skill entry.
type SkillResource struct {
	URI    string `json:"uri"`
	Digest string `json:"digest"`
	Size   int64  `json:"size"`
}

// SkillEntry is SEP-2640's Skill: the URI of its SKILL.md, its frontmatter
// verbatim, and every file.
type SkillEntry struct {
	URI         string          `json:"uri"`
	Frontmatter json.RawMessage `json:"frontmatter"`
	Resources   []SkillResource `json:"resources"`
}

// ListSkillsParams are skills/list's parameters.
type ListSkillsParams struct {
	mcp.ParamsBase
	Cursor string `json:"cursor,omitempty"`
}

// ListSkillsResult is skills/list's result.
type ListSkillsResult struct {
	mcp.ResultBase
	ResultType string       `json:"resultType"`
	Skills     []SkillEntry `json:"skills"`
	NextCursor string       `json:"nextCursor,omitempty"`
	TTLMs      int          `json:"ttlMs"`
	CacheScope string       `json:"cacheScope"`
}

// GetSkillParams are skills/get's parameters.
type GetSkillParams struct {
	mcp.ParamsBase
	URI string `json:"uri"`
}

// GetSkillResult is skills/get's result.
type GetSkillResult struct {
	mcp.ResultBase
	ResultType string     `json:"resultType"`
	Skill      SkillEntry `json:"skill"`
	TTLMs      int        `json:"ttlMs"`
	CacheScope string     `json:"cacheScope"`
}

// Bounds of one upstream's skills/list.
const (
	upstreamSkillPages = 100
	upstreamSkillsMax  = 10_000
)

// ListedSkill is a skills/list entry as the hub reads it from an upstream:
// its resources may be "dynamic" rather than a SkillResource list.
type ListedSkill struct {
	URI         string          `json:"uri"`
	Frontmatter json.RawMessage `json:"frontmatter"`
	Resources   json.RawMessage `json:"resources"`
}

// ListedSkillsResult is skills/list's result as the hub reads it from an
// upstream.
type ListedSkillsResult struct {
	mcp.ResultBase
	Skills     []ListedSkill `json:"skills"`
	NextCursor string        `json:"nextCursor,omitempty"`
}

// addSkillsClientMethods lets client send the extension's methods.
func addSkillsClientMethods(c *mcp.Client) {
	if err := mcp.AddSendingCustomMethod[*ListSkillsParams, *ListedSkillsResult](c, "skills/list"); err != nil {
		panic(err) // not a standard method name: cannot happen
	}
}

// ListSkills returns the skill entries of source's upstream, or none when
// it does not declare the Skills extension. Safe for concurrent use.
func (u *Upstreams) ListSkills(ctx context.Context, source string) ([]ListedSkill, error) {
	if _, ok := u.backendOf(source); ok {
		return nil, nil // a REST API has no skills
	}
	s, err := u.acquire(ctx, source, "")
	if err != nil {
		return nil, err
	}
	listCtx, cancel := context.WithTimeout(ctx, u.opts.CallTimeout)
	defer cancel()
	var entries []ListedSkill
	if init := s.cs.InitializeResult(); init != nil && init.Capabilities != nil && init.Capabilities.Extensions[SkillsExtension] != nil {
		cursor := ""
		for page := 0; ; page++ {
			if page == upstreamSkillPages {
				err = fmt.Errorf("skills/list: more than %d pages", upstreamSkillPages)
				break
			}
			var res *ListedSkillsResult
			res, err = mcp.CallCustomMethod[*ListSkillsParams, *ListedSkillsResult](listCtx, s.cs, "skills/list", &ListSkillsParams{Cursor: cursor})
			if err != nil {
				break
			}
			entries = append(entries, res.Skills...)
			if len(entries) > upstreamSkillsMax {
				entries, err = entries[:upstreamSkillsMax], fmt.Errorf("skills/list: more than %d skills", upstreamSkillsMax)
				break
			}
			if res.NextCursor == "" || res.NextCursor == cursor {
				break
			}
			cursor = res.NextCursor
		}
	}
	err = u.classify(ctx, listCtx, s, "listing skills", err)
	u.release(s, err)
	if err != nil {
		return nil, err
	}
	return entries, nil
}

// ReadResource reads one resource of source's upstream and returns its raw
// bytes. Safe for concurrent use.
func (u *Upstreams) ReadResource(ctx context.Context, source, uri string) ([]byte, error) {
	s, err := u.acquire(ctx, source, "")
	if err != nil {
		return nil, err
	}
	readCtx, cancel := context.WithTimeout(ctx, u.opts.CallTimeout)
	defer cancel()
	res, err := s.cs.ReadResource(readCtx, &mcp.ReadResourceParams{URI: uri})
	err = u.classify(ctx, readCtx, s, "reading "+uri, err)
	u.release(s, err)
	if err != nil {
		return nil, err
	}
	for _, c := range res.Contents {
		if c != nil && (c.URI == uri || c.URI == "") {
			if c.Blob != nil {
				return c.Blob, nil
			}
			return []byte(c.Text), nil
		}
	}
	return nil, fmt.Errorf("reading %s: the answer holds no contents for it", uri)
}
