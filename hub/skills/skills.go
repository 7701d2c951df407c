package skills

// Skills and their files: SKILL.md parsed, a local skill's folder read
// within the bounds, and the set the registry serves.

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"time"
	"unicode/utf8"

	"capabilities.sh/capabilities/hub/config"
	"gopkg.in/yaml.v3"
)

// The per-skill limits SEP-2640 fixes: a skill over either is not served.
const (
	skillMaxFiles = 512
	skillMaxBytes = 16 << 20
)

// skillNameRE is the Agent Skills naming rule: lower-case letters, digits
// and single hyphens, 1 to 64 characters.
var skillNameRE = regexp.MustCompile(`^[a-z0-9]+(-[a-z0-9]+)*$`)

// SkillFile is one file of a skill.
type SkillFile struct {
	Path   string // relative to the skill's folder, "/"-separated; SKILL.md first
	Size   int64
	Digest string // "sha256:" + 64 lower-case hex digits of the raw bytes
}

// Skill is one skill, local or an upstream's.
type Skill struct {
	// Source is the upstream's config name, "" for a local skill.
	Source string
	// Namespace is Namespace(Source) for an upstream skill.
	Namespace string
	// Path is the SEP-2640 skill path: "git-workflow", or for an upstream
	// "acme/billing/refunds". Its last segment is Name.
	Path string
	// Address is skill:<Path> for a local skill, skill:<Namespace>.<Path>
	// for an upstream's.
	Address     string
	Name        string
	Description string
	// Frontmatter is SKILL.md's frontmatter as a JSON object, every field
	// the author wrote, in their order.
	Frontmatter json.RawMessage
	// Headings are the section headings of SKILL.md's body (local skills;
	// an upstream's body is read only when described).
	Headings []string
	// Files are the skill's files, SKILL.md first, then in path order.
	Files []SkillFile
	// Dir is the local skill's folder.
	Dir string
	// URI is an upstream skill's SKILL.md URI at its server.
	URI string
	// Hash covers the frontmatter and every file's path and digest: it
	// pins an upstream skill like a tool's definition hash. Pinned is the
	// hash first seen or accepted; Change says what changed.
	Hash   string
	Pinned string
	Change string
	// Updated is when the hub first listed the changed entry (Hash), zero
	// for a skill without a change.
	Updated time.Time
}

// Changed reports whether an upstream skill differs from the one pinned.
func (s *Skill) Changed() bool { return s.Pinned != "" && s.Pinned != s.Hash }

// File returns the skill's file at rel.
func (s *Skill) File(rel string) (SkillFile, bool) {
	for _, f := range s.Files {
		if f.Path == rel {
			return f, true
		}
	}
	return SkillFile{}, false
}

// skillHash is the hex SHA-256 over a skill's frontmatter and its files'
// paths and digests.
func skillHash(frontmatter json.RawMessage, files []SkillFile) string {
	h := sha256.New()
	h.Write(frontmatter)
	for _, f := range files {
		fmt.Fprintf(h, "\x00%s\x00%s", f.Path, f.Digest)
	}
	return hex.EncodeToString(h.Sum(nil))
}

func digestOf(data []byte) string {
	sum := sha256.Sum256(data)
	return "sha256:" + hex.EncodeToString(sum[:])
}

// Doc is SKILL.md split: its frontmatter as JSON and the fields the hub
// reads, and the body after the frontmatter.
type Doc struct {
	Frontmatter json.RawMessage
	Name        string
	Description string
	Body        string
}

// Parse reads a SKILL.md: YAML frontmatter between "---" lines at
// the top, with string name and description, then the body.
func Parse(data []byte) (*Doc, error) {
	text := strings.TrimPrefix(string(data), "\ufeff")
	first, rest, ok := strings.Cut(text, "\n")
	if !ok || strings.TrimRight(first, "\r") != "---" {
		return nil, errors.New("does not begin with YAML frontmatter (a line \"---\")")
	}
	var yamlText, body string
	found := false
	for off := 0; off <= len(rest); {
		end := strings.IndexByte(rest[off:], '\n')
		line := rest[off:]
		next := len(rest) + 1
		if end >= 0 {
			line = rest[off : off+end]
			next = off + end + 1
		}
		if strings.TrimRight(line, "\r \t") == "---" {
			yamlText = rest[:off]
			if next <= len(rest) {
				body = rest[next:]
			}
			found = true
			break
		}
		off = next
	}
	if !found {
		return nil, errors.New("the frontmatter has no closing \"---\" line")
	}
	var node yaml.Node
	if err := yaml.Unmarshal([]byte(yamlText), &node); err != nil {
		if strings.Contains(err.Error(), "mapping values are not allowed") {
			// The usual slip: "description: Use it when: ..." unquoted.
			return nil, fmt.Errorf("frontmatter: %v (a value with \": \" in it goes in quotes: description: \"...\")", err)
		}
		return nil, fmt.Errorf("frontmatter: %v", err)
	}
	if node.Kind != yaml.DocumentNode || len(node.Content) != 1 || node.Content[0].Kind != yaml.MappingNode {
		return nil, errors.New("frontmatter: must be a mapping of fields (name: ..., description: ...)")
	}
	var b bytes.Buffer
	if err := yamlJSON(&b, node.Content[0], 0); err != nil {
		return nil, fmt.Errorf("frontmatter: %v", err)
	}
	var fields struct {
		Name        any `json:"name"`
		Description any `json:"description"`
	}
	if err := json.Unmarshal(b.Bytes(), &fields); err != nil {
		return nil, fmt.Errorf("frontmatter: %v", err)
	}
	name, _ := fields.Name.(string)
	desc, _ := fields.Description.(string)
	if name == "" {
		return nil, errors.New("frontmatter: name is missing or not a string")
	}
	if strings.TrimSpace(desc) == "" {
		return nil, errors.New("frontmatter: description is missing or not a string")
	}
	return &Doc{Frontmatter: b.Bytes(), Name: name, Description: desc, Body: body}, nil
}

// yamlJSON writes a YAML node as JSON, keeping the order of mapping keys.
func yamlJSON(b *bytes.Buffer, n *yaml.Node, depth int) error {
	if depth > 64 {
		return errors.New("nested too deep")
	}
	switch n.Kind {
	case yaml.AliasNode:
		return yamlJSON(b, n.Alias, depth+1)
	case yaml.MappingNode:
		b.WriteByte('{')
		seen := map[string]bool{}
		for i := 0; i+1 < len(n.Content); i += 2 {
			k := n.Content[i]
			if k.Kind != yaml.ScalarNode {
				return fmt.Errorf("line %d: a key that is not a plain value", k.Line)
			}
			if seen[k.Value] {
				return fmt.Errorf("line %d: key %q given twice", k.Line, k.Value)
			}
			seen[k.Value] = true
			if i > 0 {
				b.WriteByte(',')
			}
			kb, _ := json.Marshal(k.Value)
			b.Write(kb)
			b.WriteByte(':')
			if err := yamlJSON(b, n.Content[i+1], depth+1); err != nil {
				return err
			}
		}
		b.WriteByte('}')
	case yaml.SequenceNode:
		b.WriteByte('[')
		for i, c := range n.Content {
			if i > 0 {
				b.WriteByte(',')
			}
			if err := yamlJSON(b, c, depth+1); err != nil {
				return err
			}
		}
		b.WriteByte(']')
	case yaml.ScalarNode:
		var v any
		if err := n.Decode(&v); err != nil {
			return fmt.Errorf("line %d: %v", n.Line, err)
		}
		switch x := v.(type) {
		case nil, bool, string, int, int64, uint64:
		case float64:
			if x != x || x > 1e308 || x < -1e308 {
				v = n.Value // .nan and .inf have no JSON form
			}
		default:
			v = n.Value // timestamps and binary stay as written
		}
		vb, err := json.Marshal(v)
		if err != nil {
			return fmt.Errorf("line %d: %v", n.Line, err)
		}
		b.Write(vb)
	default:
		return fmt.Errorf("line %d: unsupported YAML", n.Line)
	}
	return nil
}

// skillHeadings returns the ATX headings of a markdown body, outside code
// fences.
func skillHeadings(body string) []string {
	var out []string
	fence := ""
	for _, line := range strings.Split(body, "\n") {
		t := strings.TrimSpace(line)
		if fence != "" {
			if strings.HasPrefix(t, fence) {
				fence = ""
			}
			continue
		}
		if strings.HasPrefix(t, "```") || strings.HasPrefix(t, "~~~") {
			fence = t[:3]
			continue
		}
		if strings.HasPrefix(t, "#") {
			h := strings.TrimSpace(strings.TrimLeft(t, "#"))
			if h != "" && len(t)-len(strings.TrimLeft(t, "#")) <= 6 {
				out = append(out, h)
			}
		}
	}
	return out
}

// loadSkillDir reads the skill in dir: its SKILL.md and the digests of
// every regular file. Symbolic links are not followed out of the folder:
// a linked file is not part of the skill.
//
// Sizes are checked before anything is read: a file is stat'ed and its
// size counted against skillMaxBytes first, then read through a limit, so
// a file that grows meanwhile is cut there too. Files other than SKILL.md
// are hashed as they stream, never held whole.
func loadSkillDir(dir string) (*Skill, error) {
	md := filepath.Join(dir, "SKILL.md")
	data, err := readFileMax(md, skillMaxBytes)
	if err != nil {
		return nil, err
	}
	doc, err := Parse(data)
	if err != nil {
		return nil, fmt.Errorf("SKILL.md: %v", err)
	}
	base := filepath.Base(dir)
	if !skillNameRE.MatchString(doc.Name) || len(doc.Name) > 64 {
		return nil, fmt.Errorf("SKILL.md: name %q: must be 1 to 64 lower-case letters, digits and single hyphens", doc.Name)
	}
	if doc.Name != base {
		return nil, fmt.Errorf("SKILL.md: name %q must be the folder's name, %q", doc.Name, base)
	}
	files := []SkillFile{{Path: "SKILL.md", Size: int64(len(data)), Digest: digestOf(data)}}
	total := int64(len(data))
	err = filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.Type().IsRegular() {
			return nil
		}
		rel, err := filepath.Rel(dir, p)
		if err != nil {
			return err
		}
		rel = filepath.ToSlash(rel)
		if rel == "SKILL.md" {
			return nil
		}
		if len(files) >= skillMaxFiles {
			return fmt.Errorf("more than %d files (the limit of files per skill)", skillMaxFiles)
		}
		fi, err := d.Info()
		if err != nil {
			return err
		}
		if total+fi.Size() > skillMaxBytes {
			return fmt.Errorf("%s is %s, which takes its files past %s (the limit of bytes per skill)", rel, config.HumanBytes(fi.Size()), config.HumanBytes(skillMaxBytes))
		}
		size, digest, err := digestFileMax(p, skillMaxBytes-total)
		if err != nil {
			return fmt.Errorf("%s: %w", rel, err)
		}
		total += size
		files = append(files, SkillFile{Path: rel, Size: size, Digest: digest})
		return nil
	})
	if err != nil {
		return nil, err
	}
	sort.Slice(files[1:], func(i, j int) bool { return files[1+i].Path < files[1+j].Path })
	return &Skill{
		Path: doc.Name, Address: "skill:" + doc.Name, Name: doc.Name, Description: doc.Description,
		Frontmatter: doc.Frontmatter, Headings: skillHeadings(doc.Body), Files: files, Dir: dir,
		Hash: skillHash(doc.Frontmatter, files),
	}, nil
}

// errSkillFileLarge is a file over what it may hold.
type errSkillFileLarge struct {
	size, max int64
}

func (e *errSkillFileLarge) Error() string {
	return fmt.Sprintf("it is %s, above the %s it may hold (the limit of bytes per skill)", config.HumanBytes(e.size), config.HumanBytes(e.max))
}

// readFileMax reads the regular file p whole when it holds at most max
// bytes: its size is checked before it is read, and the read stops past
// max should the file grow meanwhile.
func readFileMax(p string, max int64) ([]byte, error) {
	f, err := os.Open(p)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("%s is not a regular file", filepath.Base(p))
	}
	if fi.Size() > max {
		return nil, fmt.Errorf("%s: %w", filepath.Base(p), &errSkillFileLarge{fi.Size(), max})
	}
	b, err := io.ReadAll(io.LimitReader(f, max+1))
	if err != nil {
		return nil, err
	}
	if int64(len(b)) > max {
		return nil, fmt.Errorf("%s: %w", filepath.Base(p), &errSkillFileLarge{int64(len(b)), max})
	}
	return b, nil
}

// digestFileMax is the size and digest of the file p, read as a stream of
// at most max bytes: a file past max (it grew since it was stat'ed) is an
// error.
func digestFileMax(p string, max int64) (int64, string, error) {
	f, err := os.Open(p)
	if err != nil {
		return 0, "", err
	}
	defer f.Close()
	h := sha256.New()
	n, err := io.Copy(h, io.LimitReader(f, max+1))
	if err != nil {
		return 0, "", err
	}
	if n > max {
		return 0, "", &errSkillFileLarge{n, max}
	}
	return n, "sha256:" + hex.EncodeToString(h.Sum(nil)), nil
}

// Set is the skills known at one moment, sorted by Address. It is
// immutable.
type Set struct {
	skills    []*Skill
	byAddress map[string]*Skill
}

// NewSet makes a set of skills: it sorts them by Address in place and
// keeps the slice.
func NewSet(skills []*Skill) *Set {
	sort.Slice(skills, func(i, j int) bool { return skills[i].Address < skills[j].Address })
	s := &Set{skills: skills, byAddress: make(map[string]*Skill, len(skills))}
	for _, sk := range skills {
		s.byAddress[sk.Address] = sk
	}
	return s
}

// All are the set's skills in address order. Callers must not modify
// the slice or the skills.
func (s *Set) All() []*Skill {
	if s == nil {
		return nil
	}
	return s.skills
}

// Lookup returns the skill at address.
func (s *Set) Lookup(address string) (*Skill, bool) {
	if s == nil {
		return nil, false
	}
	sk, ok := s.byAddress[address]
	return sk, ok
}

// FileNames are the paths of the skill's files, SKILL.md first.
func (s *Skill) FileNames() []string {
	names := make([]string, len(s.Files))
	for i, f := range s.Files {
		names[i] = f.Path
	}
	return names
}

// CleanFile checks a file path named after "#": relative, no "..",
// "/"-separated.
func CleanFile(rel string) (string, bool) {
	if rel == "" || strings.HasPrefix(rel, "/") || strings.Contains(rel, "\\") || !utf8.ValidString(rel) {
		return "", false
	}
	c := path.Clean(rel)
	if c != rel || c == "." || c == ".." || strings.HasPrefix(c, "../") {
		return "", false
	}
	return c, true
}
