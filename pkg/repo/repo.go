// Package repo finds the repository burl works on, from any directory: the
// main worktree, a subdirectory, a task worktree or the workflow worktree.
// It is the only place that knows where things live on disk.
package repo

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/burl-dev/burl/pkg/errs"
	"github.com/burl-dev/burl/pkg/gitx"
)

// Defaults for the bootstrap settings; they can be overridden per clone with
// `git config burl.branch` / `git config burl.worktree`, never from the
// config file, because that file lives on the workflow branch itself.
const (
	DefaultBranch   = "burl"
	DefaultWorktree = ".burl"
	// WorktreesDirName holds the task worktrees, beside the workflow worktree.
	WorktreesDirName = ".worktrees"
)

// Repo is a resolved repository.
type Repo struct {
	Root      string // the main worktree
	CommonDir string // shared .git directory
	Toplevel  string // the worktree the command runs in ("" if outside any)
	Branch    string // workflow branch name
	Worktree  string // absolute path of the workflow worktree
	Git       gitx.Git
	// CommentChar is core.commentChar ("" when unset: git's "#"), which
	// the commit-msg hook needs to tell an empty message.
	CommentChar string
	// remotes are the names of the remotes with a URL, read with the
	// bootstrap settings: asking git again costs a process per question.
	remotes map[string]bool
	// hooksPath is core.hooksPath as configured ("" when unset).
	hooksPath string
	// What git maintenance run --auto decides by: gc.auto,
	// gc.autoPackLimit, and whether any maintenance.* key is set.
	gcAuto, gcPackLimit int
	maintenance         bool
	// commit.gpgSign, and a non-UTF-8 i18n.commitEncoding: only git
	// commit-tree makes such commits as configured.
	signs, encodes bool
	// ident holds the identity settings (identKeys) as git lists them.
	ident map[string]string
	// credentials are the credential helpers and remote URLs, in git's
	// order (CredentialSettings).
	credentials []Setting
}

// Setting is one key and value as git config lists them.
type Setting struct{ Key, Value string }

// CredentialSettings are credential.*helper and remote.*.url and
// .pushurl as `git config --get-regexp` lists them (the system's, the
// user's, then the repository's), read with the bootstrap settings: a
// sandbox hides the helpers' stores and binds a local remote read-only,
// for every run.
func (r *Repo) CredentialSettings() []Setting { return r.credentials }

// CommitTreeOnly reports whether workflow commits must be made by git
// commit-tree (signed, or with an encoding header) rather than written as
// burl builds them.
func (r *Repo) CommitTreeOnly() bool { return r.signs || r.encodes }

// Signs reports whether the user's git signs commits (commit.gpgSign):
// burl's own commits, the workflow's and the landing records', are then
// signed too (DESIGN §22).
func (r *Repo) Signs() bool { return r.signs }

// ObjectsDir is where git writes this repository's objects.
func (r *Repo) ObjectsDir() string { return filepath.Join(r.CommonDir, "objects") }

// NeedsMaintenance reports whether `git maintenance run --auto` may have
// work to do, by git's own test for its default gc task: more than
// gc.auto/256 loose objects in objects/17, or more than gc.autoPackLimit
// packs. With any maintenance.* setting (git maintenance start, a task
// enabled) git is always asked. Every transition would otherwise start a
// git process that, nearly always, only finds there is nothing to do.
func (r *Repo) NeedsMaintenance() bool {
	if r.maintenance {
		return true
	}
	if r.gcAuto <= 0 {
		return false
	}
	objects := r.ObjectsDir()
	if ents, err := os.ReadDir(filepath.Join(objects, "17")); err == nil {
		limit, n := (r.gcAuto+255)/256, 0
		for _, e := range ents {
			if len(e.Name()) >= 38 && strings.Trim(e.Name(), "0123456789abcdef") == "" {
				if n++; n > limit {
					return true
				}
			}
		}
	}
	if r.gcPackLimit <= 0 {
		return false
	}
	ents, err := os.ReadDir(filepath.Join(objects, "pack"))
	if err != nil {
		return false
	}
	packs := 0
	for _, e := range ents {
		if base, ok := strings.CutSuffix(e.Name(), ".pack"); ok {
			if _, err := os.Stat(filepath.Join(objects, "pack", base+".keep")); err != nil {
				packs++
			}
		}
	}
	return packs > r.gcPackLimit
}

func atoiOr(s string, def int) int {
	// git's integer config takes k, m and g suffixes.
	mult := 1
	switch strings.ToLower(s[len(s)-min(len(s), 1):]) {
	case "k":
		mult = 1 << 10
	case "m":
		mult = 1 << 20
	case "g":
		mult = 1 << 30
	}
	if mult > 1 {
		s = s[:len(s)-1]
	}
	n, err := strconv.Atoi(strings.TrimSpace(s))
	if err != nil {
		return def
	}
	return n * mult
}

// HooksDir is where git looks for this repository's hooks, as
// `git rev-parse --path-format=absolute --git-path hooks` run in the main
// worktree answers, from the settings already read: claim checks burl's
// hooks there on every run, and a process per claim is measurable.
func (r *Repo) HooksDir() string {
	p := r.hooksPath
	switch {
	case p == "":
		return filepath.Join(r.CommonDir, "hooks")
	case p == "~" || strings.HasPrefix(p, "~/"):
		if home, err := os.UserHomeDir(); err == nil {
			p = filepath.Join(home, strings.TrimPrefix(p, "~"))
		}
	case !filepath.IsAbs(p):
		p = filepath.Join(r.Root, p)
	}
	return filepath.Clean(p)
}

// HasRemote reports whether remote name has a URL in this clone's git
// config, as `git config --get remote.<name>.url` would.
func (r *Repo) HasRemote(name string) bool { return r.remotes[name] }

// WorkflowDir is where all workflow state lives.
func (r *Repo) WorkflowDir() string { return filepath.Join(r.Worktree, ".workflow") }

// WorktreesDir is where task worktrees are created.
func (r *Repo) WorktreesDir() string { return filepath.Join(r.Root, WorktreesDirName) }

// Rel renders p relative to the repository root for messages, which then
// read the same from every directory.
func (r *Repo) Rel(p string) string {
	if rel, err := filepath.Rel(r.Root, p); err == nil && !leavesDir(rel) {
		return filepath.ToSlash(rel)
	}
	return p
}

// leavesDir reports whether a relative path climbs out of its base: a
// ".." segment, not a name that merely starts with two dots.
func leavesDir(rel string) bool {
	return rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator))
}

// Resolve finds the repository containing dir. A process asks git once
// per directory: later calls are answered from what it read while the
// configuration files it came from are unchanged (cache.go).
func Resolve(dir string) (*Repo, error) {
	r, pre := cached(dir)
	if r != nil {
		return r, nil
	}
	d := found{}
	d.common, d.top, d.ok = discover(dir)
	if d.ok && pre.files == nil {
		// Where the repository is known before git config reads, its files
		// are stamped now: the next Resolve is answered from this one.
		files := configFiles(&Repo{CommonDir: d.common, Toplevel: d.top})
		if st, ok := stampOf(files); ok {
			pre = preStamp{files, st}
		}
	}
	r, origins, err := resolve(dir, d)
	if err != nil {
		return nil, err
	}
	remember(dir, r, origins, pre)
	return r, nil
}

// found is discover's answer.
type found struct {
	common, top string
	ok          bool
}

func resolve(dir string, d found) (*Repo, []string, error) {
	g := gitx.In(dir)
	// Every command and hook starts here: the two git processes run side
	// by side rather than one after the other. git config reads the same
	// repository configuration from any of its worktrees.
	type result struct {
		out string
		err error
	}
	cfg := make(chan result, 1)
	key := bootstrapKey(d)
	if out, ok := keptBootstrap(d, key); ok {
		cfg <- result{out, nil}
	} else {
		go func() {
			// As the user has it: reading config runs no hook, and
			// core.hooksPath must be the user's, not burl's hooks-off setting.
			out, err := gitx.Git{Dir: dir, UserHooks: true}.Run("config", "--show-origin", "--get-regexp", bootstrapKeys)
			if err == nil || gitx.ExitCodeOf(err) == 1 {
				keepBootstrap(d, key, out)
			}
			cfg <- result{out, err}
		}()
	}
	var out string
	var err error
	if d.ok {
		out = d.common + "\n" + d.top
	} else {
		out, err = g.Run("rev-parse", "--path-format=absolute", "--git-common-dir", "--show-toplevel")
	}
	c := <-cfg
	if d.ok && movesWorktree(c.out) {
		// core.worktree or core.bare: git says where the worktree is.
		out, err = g.Run("rev-parse", "--path-format=absolute", "--git-common-dir", "--show-toplevel")
	}
	if err != nil {
		if _, serr := os.Stat(dir); dir == "" || serr != nil {
			// The shell stands in a folder that is gone: approve removes
			// the worktree of the task it landed, run from inside it.
			return nil, nil, errs.New(errs.User, "the current directory no longer exists (%s): an approve removes the worktree of the task it landed", orHere(dir)).
				WithFix("cd to the repository's main worktree (cd ..; git rev-parse --show-toplevel there), then run the command again")
		}
		if gitx.ExitCodeOf(err) == 128 {
			return nil, nil, errs.New(errs.User, "%s is not inside a git repository", dir).
				WithFix("run burl inside a git repository (git init, then commit once)")
		}
		return nil, nil, err
	}
	lines := strings.Split(out, "\n")
	r := &Repo{CommonDir: filepath.Clean(lines[0])}
	if len(lines) > 1 {
		r.Toplevel = filepath.Clean(lines[1])
	}
	// A task worktree inside a watch run has the run's own git dir: its
	// repository is still the shared one, whose main worktree git must
	// name from the shared git dir, not from the run's.
	if shared, ok := SharedOfRun(r.CommonDir); ok {
		r.CommonDir = shared
		g = gitx.Git{Dir: dir, Env: []string{"GIT_DIR=" + shared}}
	}
	if filepath.Base(r.CommonDir) == ".git" {
		r.Root = filepath.Dir(r.CommonDir)
	} else if r.Root, err = mainWorktree(g); err != nil {
		return nil, nil, err
	}
	if r.Root == "" {
		return nil, nil, errs.New(errs.User, "%s is a bare repository; burl needs a working tree", r.CommonDir)
	}
	r.Git = gitx.In(r.Root)
	origins, err := r.readBootstrap(c.out, c.err)
	if err != nil {
		return nil, nil, err
	}
	return r, origins, nil
}

// bootstrapKeys are the git config keys burl reads before anything else.
// include.* and includeIf.* are read only to know that the settings may
// come from files named nowhere else (cache.go).
const bootstrapKeys = `^(include\..+|includeif\..+|core\.worktree|core\.bare|burl\.(branch|worktree)|remote\..+\.(url|pushurl)|credential\..*helper|core\.commentchar|core\.hookspath|gc\.auto|gc\.autopacklimit|maintenance\..+|commit\.gpgsign|i18n\.commitencoding|(user|author|committer)\.(name|email))$`

// credentialKey: credential.*helper, remote.*.url or remote.*.pushurl.
func credentialKey(k string) bool {
	if strings.HasPrefix(k, "credential.") {
		return strings.HasSuffix(k, "helper")
	}
	return strings.HasPrefix(k, "remote.") && (strings.HasSuffix(k, ".url") || strings.HasSuffix(k, ".pushurl"))
}

// movesWorktree reports a setting in the bootstrap config that puts the
// worktree elsewhere than discover looks (core.worktree, core.bare).
func movesWorktree(out string) bool {
	for _, l := range strings.Split(out, "\n") {
		_, l, _ = strings.Cut(l, "\t")
		k, v, _ := strings.Cut(l, " ")
		if k == "core.worktree" || k == "core.bare" && !isFalse(v) {
			return true
		}
	}
	return false
}

// mainWorktree covers repositories whose git dir is not <root>/.git
// (--separate-git-dir, GIT_DIR): the first entry of the worktree list is
// always the main worktree.
func mainWorktree(g gitx.Git) (string, error) {
	out, err := g.Run("worktree", "list", "--porcelain")
	if err != nil {
		return "", err
	}
	for _, l := range strings.Split(out, "\n") {
		if p, ok := strings.CutPrefix(l, "worktree "); ok {
			return filepath.Clean(p), nil
		}
		if l == "bare" {
			return "", nil
		}
	}
	return "", nil
}

// isFalse is git's false for a boolean setting.
func isFalse(v string) bool {
	switch strings.ToLower(v) {
	case "false", "no", "off", "0":
		return true
	}
	return false
}

// readBootstrap takes the output of `git config --show-origin
// --get-regexp bootstrapKeys` and returns the origins of its settings
// ("file:PATH", "command line:", ...; "include:" for an include).
func (r *Repo) readBootstrap(out string, err error) ([]string, error) {
	r.Branch, r.Worktree = DefaultBranch, DefaultWorktree
	r.remotes = map[string]bool{}
	r.ident = map[string]string{}
	// git's defaults (gc.auto, gc.autoPackLimit).
	r.gcAuto, r.gcPackLimit = 6700, 50
	if err != nil && gitx.ExitCodeOf(err) != 1 {
		return nil, err
	}
	var origins []string
	for _, l := range strings.Split(out, "\n") {
		origin, l, _ := strings.Cut(l, "\t")
		k, v, _ := strings.Cut(l, " ")
		if strings.HasPrefix(k, "include.") || strings.HasPrefix(k, "includeif.") {
			origin = "include:"
		}
		if k != "" {
			origins = append(origins, origin)
		}
		switch k {
		case "burl.branch":
			r.Branch = v
		case "burl.worktree":
			r.Worktree = v
		case "core.commentchar":
			r.CommentChar = v
		case "core.hookspath":
			// The last one listed is the one in force (local after global).
			r.hooksPath = v
		case "gc.auto":
			r.gcAuto = atoiOr(v, r.gcAuto)
		case "gc.autopacklimit":
			r.gcPackLimit = atoiOr(v, r.gcPackLimit)
		case "commit.gpgsign":
			// The last one listed is in force; anything but a clear
			// false is left to git.
			r.signs = !isFalse(v)
		case "i18n.commitencoding":
			e := strings.ToLower(v)
			r.encodes = e != "utf-8" && e != "utf8"
		default:
			if credentialKey(k) {
				r.credentials = append(r.credentials, Setting{k, v})
			}
			if identKeys[k] {
				// The last one listed is in force.
				r.ident[k] = v
				continue
			}
			// Remote names keep their case and may hold dots.
			if name, ok := strings.CutPrefix(k, "remote."); ok && strings.HasSuffix(name, ".url") {
				r.remotes[strings.TrimSuffix(name, ".url")] = true
			}
			if strings.HasPrefix(k, "maintenance.") {
				r.maintenance = true
			}
		}
	}
	// The name ends up as an argument of git branch / worktree add: a
	// leading "-" would be read as an option.
	if r.Branch == "" || strings.ContainsAny(r.Branch, " ~^:?*[\\") || strings.HasPrefix(r.Branch, "-") ||
		strings.Contains(r.Branch, "..") || strings.Contains(r.Branch, "@{") || strings.HasSuffix(r.Branch, ".lock") {
		return nil, errs.New(errs.User, "git config burl.branch %q is not a valid branch name", r.Branch).
			WithFix("git config burl.branch burl")
	}
	wt := filepath.Clean(filepath.FromSlash(r.Worktree))
	if filepath.IsAbs(wt) || wt == "." || leavesDir(wt) {
		return nil, errs.New(errs.User, "git config burl.worktree %q must be a path inside the repository", r.Worktree).
			WithFix("git config burl.worktree .burl")
	}
	r.Worktree = filepath.Join(r.Root, wt)
	return origins, nil
}

// Initialized reports whether the workflow worktree has been set up.
func (r *Repo) Initialized() bool {
	st, err := os.Stat(filepath.Join(r.WorkflowDir(), "config.yaml"))
	return err == nil && !st.IsDir()
}

func orHere(dir string) string {
	if dir == "" {
		return "its path is unknown"
	}
	return dir
}
