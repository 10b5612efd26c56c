package runguard

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/burl-dev/burl/pkg/gitx"
)

// Guard is what a run must leave as it found it, recorded before the run
// (DESIGN §16, §19): the repository's git config (but for branch.*
// sections, which claims and approves write), the hooks directory git
// uses, and .git/info/ (but for exclude, which worktree_setup appends to);
// the pinned git configuration's sources; the directories of burl's own
// state; and, for a run without a sandbox, every ref, the task's git dir
// files and the object store's alternates.
type Guard struct {
	config     string
	configText string // the config file as it was, to put back
	files      map[string][]byte
	dirs       []string
	workflow   gitx.Git
	spec       GuardSpec
	// exact are files put back byte for byte (or removed) after a change.
	exact []source
	refs  Refs
	// chains are, for each of burl's state directories, the identity of
	// every directory from / down to it.
	chains map[string][]link
	began  time.Time
}

// Spec is what g records.
func (g *Guard) Spec() GuardSpec { return g.spec }

// Began is when g was recorded: the start of the run's window.
func (g *Guard) Began() time.Time { return g.began }

// GuardSpec is what a Guard records.
type GuardSpec struct {
	Root, CommonDir, WorkflowWorktree string
	// Hooks is where git looks for the repository's hooks, as the caller
	// read it from the settings (repo.Repo.HooksDir); "" asks git.
	Hooks string
	// Pin is the pinned git configuration, whose sources a run must not
	// change.
	Pin *Pin
	// WorkflowReadOnly: the run cannot write the workflow worktree (its
	// sandbox makes it read-only), so an edit found there is not the
	// run's, and git status is not asked.
	WorkflowReadOnly bool
	// Unconfined asks for what only a run without a sandbox can reach:
	// every ref (loose and packed), the task's git dir files and the
	// object store's alternates.
	Unconfined bool
	// TaskGitDir is the task worktree's own git dir, and Branch the task's
	// branch (the one ref the run moves).
	TaskGitDir, Branch string
	// State are burl's own directories that a run must not replace (the
	// trust store's, the forge state's, the logs folder): a replacement is
	// Report.Replaced.
	State []string
}

// link is one directory of a chain: its path and its identity.
type link struct {
	path string
	id   fileID
}

// Record takes the Guard of spec.
func Record(spec GuardSpec) (*Guard, error) {
	g := &Guard{config: filepath.Join(spec.CommonDir, "config"), files: map[string][]byte{}, spec: spec,
		workflow: gitx.Git{Dir: spec.WorkflowWorktree, OwnRepo: true}, chains: map[string][]link{}, began: time.Now()}
	data, err := os.ReadFile(g.config)
	if err != nil {
		return nil, err
	}
	g.configText = string(data)
	hooks := spec.Hooks
	if hooks == "" {
		if hooks, err = (gitx.Git{Dir: spec.Root, UserHooks: true}).Run("rev-parse", "--path-format=absolute", "--git-path", "hooks"); err != nil {
			return nil, err
		}
	}
	g.dirs = []string{hooks, filepath.Join(spec.CommonDir, "info")}
	for _, d := range g.dirs {
		for p, b := range readDir(d) {
			g.files[p] = b
		}
	}
	for _, d := range spec.State {
		c, err := chain(d)
		if err != nil {
			return nil, err
		}
		g.chains[d] = c
	}
	if spec.Unconfined {
		if g.refs, err = ReadRefs(spec.CommonDir); err != nil {
			return nil, err
		}
		g.exact = append(g.exact, readSource(filepath.Join(spec.CommonDir, "objects", "info", "alternates")))
		if spec.TaskGitDir != "" {
			for _, f := range []string{"HEAD", "commondir", "gitdir", "config.worktree"} {
				g.exact = append(g.exact, readSource(filepath.Join(spec.TaskGitDir, f)))
			}
		}
	}
	return g, nil
}

// chain is the identity of every directory from / down to d.
func chain(d string) ([]link, error) {
	d, err := filepath.Abs(d)
	if err != nil {
		return nil, err
	}
	var out []link
	for p := d; ; p = filepath.Dir(p) {
		id, err := lstatID(p)
		if err != nil {
			return nil, err
		}
		out = append(out, link{p, id})
		if filepath.Dir(p) == p {
			return out, nil
		}
	}
}

// readDir is every regular file under d (its hooks are small) by path.
func readDir(d string) map[string][]byte {
	out := map[string][]byte{}
	_ = filepath.WalkDir(d, func(p string, e os.DirEntry, err error) error {
		if err != nil || e.IsDir() || filepath.Base(p) == "exclude" && filepath.Base(filepath.Dir(p)) == "info" {
			return nil
		}
		if b, err := os.ReadFile(p); err == nil {
			out[p] = b
		}
		return nil
	})
	return out
}

// Report is what a run changed of what it must not change.
type Report struct {
	// Changes name each change, for run_tampered.
	Changes []string
	// Undone is false when something could not be put back.
	Undone bool
	// Replaced are directories leading to burl's state that are now
	// another directory (or none): nothing burl reads there is its own any
	// more, and nothing may run until a person puts them back.
	Replaced []Replacement
}

// Replacement is a directory a run replaced: the path, and the directory
// that was there.
type Replacement struct {
	link
	state string // the state directory it leads to
	chain []link // every directory from the state directory up to /
}

// Restored reports whether every directory on the way to the state
// directory is the one that was there again.
func (r Replacement) Restored() bool {
	for _, l := range r.chain {
		if id, err := lstatID(l.path); err != nil || !id.same(l.id) {
			return false
		}
	}
	return true
}

func (r Replacement) String() string {
	s := fmt.Sprintf("%s (on the way to %s", r.path, r.state)
	if n := inode(r.id); n != "" {
		s += "; the original is inode " + n
	}
	return s + ")"
}

// Explain tells a ref change burl's own transitions made (true) from the
// run's; a Guard without it counts every ref change as the run's.
type Explain func(RefChange) bool

// Changes names what differs from the record, and puts back what it can
// exactly (the config file, hooks and info files, the pinned config's
// sources, refs the run moved, the task's git dir files: what they were
// is kept) plus any uncommitted change in the workflow worktree, which
// only a transition under the workflow lock may make; the caller holds
// that lock.
func (g *Guard) Changes(explain Explain) Report {
	changes, undone := g.changes(explain)
	r := Report{Changes: changes, Undone: undone}
	for _, d := range g.spec.State {
		// From / down: the first directory replaced is what the run moved.
		c := g.chains[d]
		for i := len(c) - 1; i >= 0; i-- {
			l := c[i]
			if id, err := lstatID(l.path); err != nil || !id.same(l.id) {
				rep := Replacement{l, d, c}
				r.Replaced = append(r.Replaced, rep)
				r.Changes = append(r.Changes, "replaced: "+rep.String())
				break
			}
		}
	}
	return r
}

func (g *Guard) changes(explain Explain) (changes []string, undone bool) {
	undone = true
	if g.spec.Pin != nil {
		c, ok := g.spec.Pin.Changes()
		changes, undone = append(changes, c...), ok
	}
	for _, s := range g.exact {
		now := readSource(s.path)
		if now.exists == s.exists && bytes.Equal(now.data, s.data) && !now.symlink {
			continue
		}
		changes = append(changes, s.path+" changed")
		if s.restore(now) != nil {
			undone = false
		}
	}
	if data, err := os.ReadFile(g.config); err != nil || string(data) != g.configText {
		if diff := configDiff(g.configText, string(data)); len(diff) > 0 {
			changes = append(changes, fmt.Sprintf("%s: %s", g.config, strings.Join(diff, ", ")))
			if os.WriteFile(g.config, []byte(g.configText), 0o644) != nil {
				undone = false
			}
		}
	}
	now := map[string][]byte{}
	for _, d := range g.dirs {
		for p, b := range readDir(d) {
			now[p] = b
		}
	}
	var paths []string
	for p := range now {
		paths = append(paths, p)
	}
	for p := range g.files {
		if _, ok := now[p]; !ok {
			paths = append(paths, p)
		}
	}
	sort.Strings(paths)
	for _, p := range paths {
		was, had := g.files[p]
		is, has := now[p]
		switch {
		case had && has && bytes.Equal(was, is):
			continue
		case !had:
			changes = append(changes, p+" added")
			if os.Remove(p) != nil {
				undone = false
			}
		case !has:
			changes = append(changes, p+" removed")
			if os.WriteFile(p, was, 0o755) != nil {
				undone = false
			}
		default:
			changes = append(changes, p+" changed")
			if os.WriteFile(p, was, 0o755) != nil {
				undone = false
			}
		}
	}
	// After the files: git runs here, and reads the config put back.
	if g.refs != nil {
		c, ok := g.refChanges(explain)
		changes = append(changes, c...)
		undone = undone && ok
	}
	if g.spec.WorkflowReadOnly {
		return changes, undone
	}
	// Raw output: the first entry may start with a space (XY is " M").
	if raw, err := g.workflow.RunInput(nil, "status", "--porcelain", "-z", "--untracked-files=all"); err == nil && len(raw) > 0 {
		for _, e := range strings.Split(strings.TrimRight(string(raw), "\x00"), "\x00") {
			if len(e) > 3 {
				changes = append(changes, filepath.Join(g.workflow.Dir, filepath.FromSlash(e[3:]))+" edited")
			}
		}
		if _, err := g.workflow.Run("checkout", "-q", "HEAD", "--", "."); err != nil {
			undone = false
		}
		if _, err := g.workflow.Run("clean", "-q", "-f", "-d"); err != nil {
			undone = false
		}
	}
	return changes, undone
}

// configDiff names the settings that differ between two texts of a git
// config file, leaving out branch.* (claims and approves set upstreams).
func configDiff(was, is string) []string {
	a, b := configLines(was), configLines(is)
	var out []string
	for k, v := range b {
		if a[k] != v {
			out = append(out, k)
		}
	}
	for k := range a {
		if _, ok := b[k]; !ok {
			out = append(out, k+" (removed)")
		}
	}
	sort.Strings(out)
	return out
}

// configLines reads a git config text as section.key -> values, naively
// but enough to tell one text from another: [section "sub"] headers and
// key = value lines.
func configLines(text string) map[string]string {
	out := map[string]string{}
	section := ""
	for _, l := range strings.Split(text, "\n") {
		l = strings.TrimSpace(l)
		switch {
		case l == "" || strings.HasPrefix(l, "#") || strings.HasPrefix(l, ";"):
		case strings.HasPrefix(l, "["):
			section = strings.ToLower(strings.Trim(strings.ReplaceAll(strings.Trim(l, "[]"), "\"", ""), " "))
			section = strings.ReplaceAll(section, " ", ".")
		default:
			if strings.HasPrefix(section, "branch.") {
				continue
			}
			k, v, _ := strings.Cut(l, "=")
			key := section + "." + strings.ToLower(strings.TrimSpace(k))
			out[key] += strings.TrimSpace(v) + "\n"
		}
	}
	return out
}
