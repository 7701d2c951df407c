package skills

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"capabilities.sh/capabilities/hub/config"
	"capabilities.sh/capabilities/hub/secrets"
	"capabilities.sh/capabilities/hub/store"
	"capabilities.sh/capabilities/hub/upstream"
)

// Remote is what the registry needs of the upstream servers: their
// skill listings and their files. The upstream sessions
// (*upstream.Upstreams) implement it.
type Remote interface {
	// ListSkills returns the skill entries of source's upstream, none when
	// it does not offer the Skills extension.
	ListSkills(ctx context.Context, source string) ([]upstream.ListedSkill, error)
	// ReadResource reads one resource of source's upstream.
	ReadResource(ctx context.Context, source, uri string) ([]byte, error)
}

var _ Remote = (*upstream.Upstreams)(nil)

// Options are what a skill registry works with, and nothing else.
// Zero values are the defaults.
type Options struct {
	// Store keeps the pins of upstream skills and the audit of their
	// acceptance. Required when Remote is set.
	Store *store.DB
	// Remote lists the upstream servers' skills and reads their files; nil
	// serves local skills only.
	Remote Remote
	// Config returns the current config: its skills.paths and sources.
	// Default: no config.
	Config func() *config.Config
	// Home is the hub's home: local skills are read from Home/skills
	// first.
	Home string
	// Secrets are scrubbed from what upstreams say of their skills
	// (default: a new registry).
	Secrets *secrets.Secrets
	// Logger logs skipped skills and failed listings (default: discard).
	Logger *slog.Logger
	// Now is the clock of the audit trail (default time.Now).
	Now func() time.Time
	// Changed is called when the upstream skills or their marks changed:
	// a Refresh listed others, or an accept pinned some (default:
	// nothing). It must not block.
	Changed func()
	// Context ends the registry's work: watching the folders and the
	// refreshes it starts (default: until Close).
	Context context.Context
}

// Registry keeps the current skill set: the local skills, re-read when a
// file in their folders changes, and the upstreams' skills as the last
// listing gave them (upstream.go).
//
// Its methods are safe for concurrent use. It owns the goroutine that
// watches the folders and the refreshes that reads of changed upstream
// files start; they end with Options.Context or Close, which waits for
// them.
type Registry struct {
	store   *store.DB
	remote  Remote
	config  func() *config.Config
	home    string
	secrets *secrets.Secrets
	log     *slog.Logger
	now     func() time.Time
	changed func()
	ctx     context.Context
	cancel  context.CancelFunc
	wg      sync.WaitGroup

	mu       sync.Mutex
	watch    *skillWatch // off when it could not start
	stamp    string      // of the local folders at the last read, without a watcher
	local    []*Skill
	reads    int                 // how often the local folders were read
	upstream map[string][]*Skill // by source
	upVer    uint64              // grows with every change of upstream
	setVer   uint64              // upVer when cur was built
	cur      *Set
	warned   map[string]string // folder -> the problem last logged
	skipped  map[string]string // folder -> why the last read skipped it
}

// New returns a registry that watches the local skill folders; it reads
// them at the first Current. It knows the upstreams' skills as they were
// last listed until a Refresh lists them again. Close ends its work.
func New(opts Options) *Registry {
	r := &Registry{
		store: opts.Store, remote: opts.Remote, config: opts.Config, home: opts.Home,
		secrets: opts.Secrets, log: opts.Logger, now: opts.Now, changed: opts.Changed,
		warned: map[string]string{}, upstream: map[string][]*Skill{},
	}
	if r.config == nil {
		r.config = func() *config.Config { return nil }
	}
	if r.secrets == nil {
		r.secrets = secrets.New()
	}
	if r.log == nil {
		r.log = slog.New(slog.DiscardHandler)
	}
	if r.now == nil {
		r.now = time.Now
	}
	if r.changed == nil {
		r.changed = func() {}
	}
	ctx := opts.Context
	if ctx == nil {
		ctx = context.Background()
	}
	r.ctx, r.cancel = context.WithCancel(ctx)
	r.load(r.ctx)
	r.watch = r.newSkillWatch(r.ctx)
	return r
}

// Close stops the registry's work and waits for it to end.
func (r *Registry) Close() {
	r.cancel()
	r.wg.Wait()
}

func (r *Registry) goBackground(f func()) {
	r.wg.Add(1)
	go func() {
		defer r.wg.Done()
		f()
	}()
}

// skillRoots are the folders local skills are read from, in order: the
// home's, then config.json's skills.paths. A skill name found twice is
// read from the first folder.
func (r *Registry) skillRoots() []string {
	roots := []string{filepath.Join(r.home, "skills")}
	if cfg := r.config(); cfg != nil {
		roots = append(roots, cfg.Skills.Paths...)
	}
	return roots
}

// skillStamp describes the skill folders under roots by each file's path,
// size and modification time, so a change to any of them is seen. It is
// what tells a change when the hub cannot watch the folders.
func skillStamp(roots []string) string {
	var b strings.Builder
	for _, root := range roots {
		b.WriteString(root)
		b.WriteByte(0)
		entries, err := os.ReadDir(root)
		if err != nil {
			continue
		}
		for _, e := range entries {
			dir := filepath.Join(root, e.Name())
			if fi, err := os.Stat(dir); err != nil || !fi.IsDir() {
				continue
			}
			filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
				if err != nil {
					return nil
				}
				if fi, err := d.Info(); err == nil {
					fmt.Fprintf(&b, "%s %d %d %o\n", p, fi.Size(), fi.ModTime().UnixNano(), fi.Mode())
				}
				return nil
			})
		}
	}
	return b.String()
}

// Current returns the current skill set. The local folders are read again
// only when they changed: the registry watches them (every folder of every
// skill, and the roots), so a search costs no file system access; a skill
// added, edited or removed shows at the next search after the change is
// seen. Where the folders cannot be watched, their files' sizes and times
// are compared on each call instead.
func (r *Registry) Current() *Set {
	roots := r.skillRoots()
	r.mu.Lock()
	defer r.mu.Unlock()
	changed := r.cur == nil
	stamp := ""
	if r.watch.on() {
		if r.watch.changed(roots) {
			// Watch first, then read: a change after this is seen.
			r.watch.begin(roots)
			changed = true
		}
	} else {
		stamp = skillStamp(roots)
		changed = changed || stamp != r.stamp
	}
	if !changed && r.setVer == r.upVer {
		return r.cur
	}
	if changed {
		r.local = r.readLocalSkills(roots)
		r.stamp = stamp
		r.reads++
	}
	all := append([]*Skill(nil), r.local...)
	for _, src := range slices.Sorted(maps.Keys(r.upstream)) {
		all = append(all, r.upstream[src]...)
	}
	r.cur = NewSet(all)
	r.setVer = r.upVer
	return r.cur
}

// readLocalSkills reads every skill folder under roots. A folder that is
// not a valid skill is skipped and logged once per problem. r.mu is held.
func (r *Registry) readLocalSkills(roots []string) []*Skill {
	var out []*Skill
	seen := map[string]string{}
	r.skipped = map[string]string{}
	for _, root := range roots {
		entries, err := os.ReadDir(root)
		if err != nil {
			if !errors.Is(err, fs.ErrNotExist) {
				r.warnSkill(root, err.Error())
			}
			continue
		}
		for _, e := range entries {
			dir := filepath.Join(root, e.Name())
			if fi, err := os.Stat(dir); err != nil || !fi.IsDir() {
				continue
			}
			if _, err := os.Stat(filepath.Join(dir, "SKILL.md")); err != nil {
				continue // not a skill folder
			}
			sk, err := loadSkillDir(dir)
			if err != nil {
				r.warnSkill(dir, err.Error())
				continue
			}
			if first, dup := seen[sk.Name]; dup {
				r.warnSkill(dir, fmt.Sprintf("skill %q is also in %s, which is used", sk.Name, first))
				continue
			}
			seen[sk.Name] = dir
			delete(r.warned, dir)
			out = append(out, sk)
		}
	}
	return out
}

// warnSkill logs a skipped folder's problem once. r.mu is held.
func (r *Registry) warnSkill(dir, problem string) {
	r.skipped[dir] = problem
	if r.warned[dir] == problem {
		return
	}
	r.warned[dir] = problem
	r.log.Warn("skipping a skill folder", "dir", dir, "problem", problem)
}

// Skipped are the local folders that hold a SKILL.md but are not used,
// each with why (no frontmatter, a name found first elsewhere, a file too
// large), as of the current skill set's reading.
func (r *Registry) Skipped() map[string]string {
	r.Current()
	r.mu.Lock()
	defer r.mu.Unlock()
	return maps.Clone(r.skipped)
}

// Served are the skills the hub serves its own clients through the
// Skills extension: the local ones, in address order.
func (r *Registry) Served() []*Skill {
	var out []*Skill
	for _, sk := range r.Current().All() {
		if sk.Source == "" {
			out = append(out, sk)
		}
	}
	return out
}

// ReadFile returns the bytes of file rel of sk, checked against the digest
// and size sk was listed with, and the skill as it is now. A local skill's
// file edited since is read again with its skill; an upstream's is read
// through resources/read (readUpstreamSkillFile), as its server serves it.
func (r *Registry) ReadFile(ctx context.Context, sk *Skill, rel string) ([]byte, *Skill, error) {
	if sk.Source != "" {
		return r.readUpstreamSkillFile(ctx, sk, rel)
	}
	for attempt := 0; ; attempt++ {
		f, ok := sk.File(rel)
		if !ok {
			return nil, sk, fmt.Errorf("%s has no file %q; its files: %s", sk.Address, rel, strings.Join(sk.FileNames(), ", "))
		}
		// At most the size it was listed with, and one byte to see it grew.
		data, err := readFileMax(filepath.Join(sk.Dir, filepath.FromSlash(f.Path)), f.Size)
		if err == nil && int64(len(data)) == f.Size && digestOf(data) == f.Digest {
			return data, sk, nil
		}
		if attempt > 0 {
			if err == nil {
				err = errors.New("it changes while being read")
			}
			return nil, sk, fmt.Errorf("reading %s#%s: %v", sk.Address, rel, err)
		}
		// The file is not what was listed: the folders changed, whether or
		// not the watch has told yet.
		r.watch.markStale()
		fresh, ok := r.Current().Lookup(sk.Address)
		if !ok {
			return nil, sk, fmt.Errorf("%s was removed", sk.Address)
		}
		sk = fresh
	}
}
