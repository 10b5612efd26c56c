// Package setup holds what git burl init sets up: the workflow branch and
// its worktree, the .workflow scaffolding, and the moves of an earlier
// version's layout (flat DONE/, one events.ndjson) into today's.
package setup

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"

	"github.com/burl-dev/burl/pkg/bucket"
	"github.com/burl-dev/burl/pkg/config"
	"github.com/burl-dev/burl/pkg/errs"
	"github.com/burl-dev/burl/pkg/events"
	"github.com/burl-dev/burl/pkg/fsx"
	"github.com/burl-dev/burl/pkg/gitx"
	"github.com/burl-dev/burl/pkg/repo"
	"github.com/burl-dev/burl/pkg/task"
)

// Workflow is the workflow init sets up.
type Workflow struct {
	Repo          *repo.Repo
	bucket.Layout          // its .workflow folder
	Git           gitx.Git // git in the workflow worktree
	// Read parses a task file into e.Task, or sets e.Err, as the workflow
	// reads every task.
	Read func(e *bucket.Entry)
}

func (w *Workflow) gitWT() gitx.Git { return w.Git }

// Rel renders a path relative to the repository root.
func (w *Workflow) Rel(p string) string { return w.Repo.Rel(p) }

// EventsDir holds the NDJSON log.
func (w *Workflow) EventsDir() string { return filepath.Join(w.Dir, bucket.EventsDirName) }

// InitOptions are init's choices.
type InitOptions struct {
	MainBranch string // "" = the branch checked out in the main worktree
	Remote     string // "" = origin
}

// InitResult says what init did.
type InitResult struct {
	Worktree string   `json:"worktree"`
	Branch   string   `json:"branch"`
	How      string   `json:"how"` // created | attached | attached-remote | existing
	Created  []string `json:"created"`
	// Uncommitted is scaffolding an interrupted init wrote but never
	// committed, committed by this run.
	Uncommitted []string `json:"uncommitted,omitempty"`
	// Migrated counts the events moved from the single events.ndjson of
	// earlier versions into day shards.
	Migrated int `json:"migrated_events,omitempty"`
	// MigratedDone counts the DONE tasks moved from flat DONE/ into month
	// shards (DONE/2026-11/).
	MigratedDone int    `json:"migrated_done,omitempty"`
	Commit       string `json:"commit,omitempty"`
	// BuildCommand is the build_command init guessed when it wrote
	// config.yaml ("" none), and BuildFrom the file it guessed from; the
	// output says both and how to change them.
	BuildCommand string `json:"build_command,omitempty"`
	BuildFrom    string `json:"build_command_from,omitempty"`
	// BuildFetches: the guessed command downloads dependencies, which an
	// agent's gate box cannot without gate_network (DESIGN §24).
	BuildFetches bool `json:"build_command_fetches,omitempty"`
	wroteConfig  bool
	configPath   string
	// Open counts the tasks not DONE an attach found: the next step is
	// then to look at them, not to add one.
	Open int `json:"-"`
}

// Attach makes sure the workflow worktree exists on the workflow branch.
func Attach(r *repo.Repo, remote string) (string, error) {
	g := r.Git
	registered, missing, err := worktreeState(g, r.Worktree, r.Branch)
	if err != nil {
		return "", err
	}
	if registered && !missing {
		return "existing", nil
	}
	if st, err := os.Stat(r.Worktree); err == nil && !missing {
		if !st.IsDir() {
			return "", errs.New(errs.User, "%s exists and is not a directory", r.Rel(r.Worktree))
		}
		if ents, _ := os.ReadDir(r.Worktree); len(ents) > 0 {
			return "", errs.New(errs.User, "%s exists but is not a git worktree of branch %s", r.Rel(r.Worktree), r.Branch).
				WithFix("move it aside, or set another location with git config burl.worktree <path>")
		}
		_ = os.Remove(r.Worktree)
	}
	add := []string{"worktree", "add", "-q"}
	if missing {
		// The worktree was deleted by hand: git still has it registered.
		add = append(add, "-f")
	}
	ref := "refs/heads/" + r.Branch
	how := "attached"
	if ok, err := g.Test("show-ref", "--verify", "-q", ref); err != nil {
		return "", err
	} else if !ok {
		remoteRef := gitx.Tracking(remote, r.Branch)
		if r.HasRemote(remote) {
			// A fresh clone may not have fetched it; an offline remote is fine.
			_ = g.FetchTracking(remote, r.Branch)
		}
		if ok, _ := g.Test("show-ref", "--verify", "-q", remoteRef); ok {
			if _, err := g.Run("branch", "-q", "--track", r.Branch, remote+"/"+r.Branch); err != nil {
				return "", err
			}
			how = "attached-remote"
		} else {
			if err := createOrphan(g, r.Branch); err != nil {
				return "", err
			}
			how = "created"
		}
	}
	if _, err := g.Run(append(add, r.Worktree, r.Branch)...); err != nil {
		return "", errs.Wrap(err, errs.Git, "Cannot create the workflow worktree "+r.Rel(r.Worktree))
	}
	return how, nil
}

// createOrphan makes the workflow branch a root commit with an empty tree,
// so it shares no files with the product code (git 2.39 has no
// `worktree add --orphan`).
func createOrphan(g gitx.Git, branch string) error {
	tree, err := g.RunInput([]byte{}, "mktree")
	if err != nil {
		return err
	}
	commit, err := g.Run("commit-tree", strings.TrimSpace(string(tree)), "-m", "burl: create workflow branch")
	if err != nil {
		return err
	}
	_, err = g.Run("branch", "-q", branch, commit)
	return err
}

// worktreeState reports whether path is registered as a worktree of branch
// and whether its directory is gone.
func worktreeState(g gitx.Git, path, branch string) (registered, missing bool, err error) {
	out, err := g.Run("worktree", "list", "--porcelain")
	if err != nil {
		return false, false, err
	}
	for _, block := range strings.Split(out, "\n\n") {
		var wt, br string
		for _, l := range strings.Split(block, "\n") {
			if v, ok := strings.CutPrefix(l, "worktree "); ok {
				wt = filepath.Clean(v)
			}
			if v, ok := strings.CutPrefix(l, "branch "); ok {
				br = v
			}
		}
		if wt == filepath.Clean(path) {
			if br != "refs/heads/"+branch {
				return false, false, errs.New(errs.User, "%s is a worktree of %s, not of the workflow branch %s", path, strings.TrimPrefix(br, "refs/heads/"), branch).
					WithFix("git -C %s switch %s", path, branch)
			}
			_, serr := os.Stat(path)
			return true, errors.Is(serr, fs.ErrNotExist), nil
		}
	}
	return false, false, nil
}

// Scaffold writes every missing piece of .workflow and returns the
// repo-relative paths it created (never nil, for --json) and the absolute
// paths of the scaffolding that was already there.
func Scaffold(w *Workflow, opts InitOptions, remote string, res *InitResult) (created, existing []string, err error) {
	created = []string{}
	write := func(p string, data []byte) error {
		if _, err := os.Lstat(p); err == nil {
			existing = append(existing, p)
			return nil
		}
		if err := fsx.WriteFile(p, data); err != nil {
			return err
		}
		created = append(created, w.Rel(p))
		return nil
	}
	// PROPOSED is made by the first proposal: a workflow without one looks
	// as it always did.
	for _, b := range bucket.Lanes {
		if err := write(filepath.Join(w.BucketDir(b), ".gitkeep"), nil); err != nil {
			return nil, nil, err
		}
	}
	if err := write(filepath.Join(w.EventsDir(), ".gitkeep"), nil); err != nil {
		return nil, nil, err
	}
	if err := write(filepath.Join(w.Dir, ".gitignore"), []byte("# machine-local: never committed\nlocks/\nlogs/\n")); err != nil {
		return nil, nil, err
	}
	if err := write(filepath.Join(w.Dir, ".gitattributes"), []byte("# two machines appending events merge by keeping both sides' lines\nevents/*.ndjson merge=union\n"+unionShards)); err != nil {
		return nil, nil, err
	}
	c := config.Default()
	c.WorkflowBranch = w.Repo.Branch
	c.WorkflowWorktree = w.Repo.Rel(w.Repo.Worktree)
	c.Remote = remote
	c.MainBranch = opts.MainBranch
	if c.MainBranch == "" {
		if b, err := w.Repo.Git.Run("symbolic-ref", "--short", "-q", "HEAD"); err == nil && b != "" {
			c.MainBranch = b
		} else {
			c.MainBranch = "main"
		}
	}
	var from string
	c.BuildCommand, from = DetectBuildCommand(w.Repo.Root)
	n := len(created)
	if err := write(filepath.Join(w.Dir, bucket.ConfigName), config.Render(c)); err != nil {
		return nil, nil, err
	}
	if len(created) > n {
		res.BuildCommand, res.BuildFrom, res.wroteConfig, res.configPath = c.BuildCommand, from, true, created[n]
		res.BuildFetches = FetchesDependencies(w.Repo.Root, from)
	}
	return created, existing, nil
}

// Untracked returns, repo-relative, those of paths (absolute, inside the
// workflow worktree) that git does not track and does not ignore.
func Untracked(w *Workflow, paths []string) ([]string, error) {
	if len(paths) == 0 {
		return nil, nil
	}
	args := []string{"--literal-pathspecs", "ls-files", "-z", "--others", "--exclude-standard", "--"}
	for _, p := range paths {
		rel, err := filepath.Rel(w.Repo.Worktree, p)
		if err != nil {
			return nil, err
		}
		args = append(args, filepath.ToSlash(rel))
	}
	out, err := w.gitWT().RunInput(nil, args...)
	if err != nil {
		return nil, err
	}
	var res []string
	for _, p := range strings.Split(string(out), "\x00") {
		if p != "" {
			res = append(res, w.Rel(filepath.Join(w.Repo.Worktree, filepath.FromSlash(p))))
		}
	}
	return res, nil
}

// DetectBuildCommand picks the test command a repository most likely
// uses, and names the file that made it think so.
func DetectBuildCommand(root string) (cmd, from string) {
	exists := func(n string) bool { _, err := os.Stat(filepath.Join(root, n)); return err == nil }
	for _, g := range []struct{ file, cmd string }{{"go.mod", "go test ./..."}, {"Cargo.toml", "cargo test"}, {"package.json", "npm test"}} {
		if exists(g.file) {
			return g.cmd, g.file
		}
	}
	for _, mk := range []string{"Makefile", "makefile", "GNUmakefile"} {
		data, err := os.ReadFile(filepath.Join(root, mk))
		if err != nil {
			continue
		}
		sc := bufio.NewScanner(bytes.NewReader(data))
		for sc.Scan() {
			if strings.HasPrefix(sc.Text(), "test:") {
				return "make test", mk
			}
		}
	}
	return "", ""
}

// FetchesDependencies reports whether the build file init guessed from
// names dependencies its command downloads when they are not cached: a
// go.mod with a require, a Cargo.toml with a dependencies table. npm test
// and make test install nothing by themselves.
func FetchesDependencies(root, file string) bool {
	data, err := os.ReadFile(filepath.Join(root, file))
	if err != nil {
		return false
	}
	for _, l := range strings.Split(string(data), "\n") {
		l = strings.TrimSpace(l)
		switch file {
		case "go.mod":
			if strings.HasPrefix(l, "require ") || l == "require (" {
				return true
			}
		case "Cargo.toml":
			if strings.HasSuffix(l, "dependencies]") && strings.HasPrefix(l, "[") {
				return true
			}
		}
	}
	return false
}

// Exclude keeps the workflow and task worktrees out of the main worktree's
// `git status` without committing anything to the user's branches.
func Exclude(r *repo.Repo) error {
	var lines []string
	for _, dir := range []string{r.Worktree, r.WorktreesDir()} {
		lines = append(lines, "/"+r.Rel(dir)+"/")
	}
	return r.Exclude("workflow and task worktrees", lines...)
}

// String renders the result for humans.
func (r *InitResult) String() string {
	var b strings.Builder
	switch r.How {
	case "created":
		fmt.Fprintf(&b, "Created workflow branch %s, checked out at %s/\n", r.Branch, r.Worktree)
	case "attached":
		fmt.Fprintf(&b, "Attached %s/ to the existing workflow branch %s\n", r.Worktree, r.Branch)
	case "attached-remote":
		fmt.Fprintf(&b, "Attached %s/ to the workflow branch %s from the remote\n", r.Worktree, r.Branch)
	default:
		fmt.Fprintf(&b, "Workflow already initialised in %s/ (branch %s)\n", r.Worktree, r.Branch)
	}
	if n := len(r.Created); n > 0 {
		fmt.Fprintf(&b, "Wrote %d file(s): %s\n", n, describeCreated(r.Created))
	}
	if r.wroteConfig {
		if r.BuildCommand != "" {
			fmt.Fprintf(&b, "build_command: %s (guessed from %s); every task's work must pass it: change it in %s\n", r.BuildCommand, r.BuildFrom, r.configPath)
			if r.BuildFetches {
				fmt.Fprintf(&b, "%s names dependencies %s downloads: the gates run in their box without the network (in watch and by hand alike), so warm the cache first or say gate_network: true in agents.yaml or config.yaml (then git burl trust)\n", r.BuildFrom, r.BuildCommand)
			}
		} else {
			fmt.Fprintf(&b, "build_command: none (no go.mod, Cargo.toml, package.json or Makefile test target): approve builds nothing until you set it in %s\n", r.configPath)
		}
	}
	if r.MigratedDone > 0 {
		fmt.Fprintf(&b, "Moved %d DONE task(s) into one folder per month (DONE/YYYY-MM/)\n", r.MigratedDone)
	}
	if r.Migrated > 0 {
		fmt.Fprintf(&b, "Moved %d event(s) from events/events.ndjson into one file per day (events/YYYY/MM/YYYY-MM-DD.ndjson)\n", r.Migrated)
	}
	if r.Open > 0 {
		fmt.Fprintf(&b, "Next: git burl status (%d task(s) are open on the branch), then git burl claim\n", r.Open)
	} else {
		fmt.Fprintf(&b, "Next: git burl add \"TITLE\" --affects PATH\n")
	}
	return b.String()
}

// describeCreated names every file init wrote: the .gitkeep files by their
// folders, the others by name.
func describeCreated(paths []string) string {
	var keeps, others []string
	for _, p := range paths {
		if path.Base(p) == ".gitkeep" {
			keeps = append(keeps, path.Base(path.Dir(p)))
		} else {
			others = append(others, path.Base(p))
		}
	}
	var parts []string
	if len(keeps) > 0 {
		parts = append(parts, ".gitkeep in "+strings.Join(keeps, " "))
	}
	return strings.Join(append(parts, others...), ", ")
}

// unionShards makes git merge the day shards of two machines by keeping
// both sides' lines, as it did the single log.
const unionShards = "events/**/*.ndjson merge=union\n"

// MigrateDone moves the task files of a flat DONE/ (earlier versions) into
// month shards, by completed_at (the month of the migration when a task
// has none). It returns DONE/ itself, for init's one commit, when it moved
// any; a malformed file stays where it is (every reader still reads flat
// DONE/, and doctor names it), so a second init moves nothing.
func MigrateDone(w *Workflow) ([]string, int, error) {
	dir := w.BucketDir(bucket.Done)
	ns, err := bucket.Names(dir)
	if err != nil {
		return nil, 0, err
	}
	// Counted before this init moves anything, so that its own moves are
	// not counted twice.
	left, err := interruptedMoves(w, dir)
	if err != nil {
		return nil, 0, err
	}
	n := 0
	for _, name := range ns {
		id, ok := task.IDFromFileName(name)
		if !ok {
			continue
		}
		e := bucket.Entry{ID: id, Bucket: bucket.Done, Path: filepath.Join(dir, name)}
		w.Read(&e)
		if e.Err != nil {
			continue
		}
		dst := w.DestPath(bucket.Done, e.Task, name)
		if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
			return nil, 0, err
		}
		if _, err := os.Lstat(dst); err == nil {
			// The same file in its shard already: leave both for doctor.
			continue
		}
		if err := os.Rename(e.Path, dst); err != nil {
			return nil, 0, err
		}
		n++
	}
	if n+left == 0 {
		return nil, 0, nil
	}
	return []string{dir}, n + left, nil
}

// interruptedMoves counts the moves an init killed between its renames and
// its commit left: a flat DONE/ file deleted in the worktree whose name
// now stands, untracked, in a month shard. The next init commits them.
func interruptedMoves(w *Workflow, dir string) (int, error) {
	rel, err := filepath.Rel(w.Repo.Worktree, dir)
	if err != nil {
		return 0, err
	}
	rel = filepath.ToSlash(rel)
	list := func(which string) (map[string]bool, error) {
		out, err := w.gitWT().RunInput(nil, "--literal-pathspecs", "ls-files", "-z", which, "--exclude-standard", "--", rel)
		if err != nil {
			return nil, err
		}
		names := map[string]bool{}
		for _, p := range strings.Split(string(out), "\x00") {
			rest, ok := strings.CutPrefix(p, rel+"/")
			if !ok {
				continue
			}
			shard, name, nested := strings.Cut(rest, "/")
			switch {
			case which == "--deleted" && !nested:
				names[rest] = true
			case which == "--others" && nested && bucket.IsDoneShard(shard) && !strings.Contains(name, "/"):
				names[name] = true
			}
		}
		return names, nil
	}
	gone, err := list("--deleted")
	if err != nil || len(gone) == 0 {
		return 0, err
	}
	added, err := list("--others")
	if err != nil {
		return 0, err
	}
	n := 0
	for name := range gone {
		if added[name] {
			n++
		}
	}
	return n, nil
}

// MigrateEvents moves the single events/events.ndjson of earlier versions
// into day shards, in file order within each day, and teaches
// .gitattributes to union-merge the shards. It returns the paths it
// changed (for init's one commit) and the number of events moved; a
// workflow already sharded gives nothing, so a second init changes
// nothing. A line that is not an event stays where it was found, in
// events.ndjson, which readers still read.
func MigrateEvents(w *Workflow) ([]string, int, error) {
	var changed []string
	attrs := filepath.Join(w.Dir, ".gitattributes")
	if data, err := os.ReadFile(attrs); err == nil && !strings.Contains(string(data), strings.TrimSpace(unionShards)) {
		if err := fsx.WriteFile(attrs, append(data, []byte(unionShards)...)); err != nil {
			return nil, 0, err
		}
		changed = append(changed, attrs)
	}
	legacy := filepath.Join(w.EventsDir(), events.FileName)
	data, err := os.ReadFile(legacy)
	if errors.Is(err, fs.ErrNotExist) {
		return changed, 0, nil
	}
	if err != nil {
		return nil, 0, err
	}
	shards := map[string][]byte{}
	var order []string
	var keep []byte
	n := 0
	for _, line := range strings.SplitAfter(string(data), "\n") {
		if strings.TrimSpace(line) == "" {
			continue
		}
		if !strings.HasSuffix(line, "\n") {
			line += "\n"
		}
		var e events.Event
		if json.Unmarshal([]byte(line), &e) != nil || e.TS.IsZero() {
			keep = append(keep, line...)
			continue
		}
		p := events.Path(w.EventsDir(), e.TS)
		if _, ok := shards[p]; !ok {
			order = append(order, p)
		}
		shards[p] = append(shards[p], line...)
		n++
	}
	for _, p := range order {
		// A shard may exist already (a clone on a newer burl appended
		// today): the old lines go first, being older.
		old, _ := os.ReadFile(p)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return nil, 0, err
		}
		if err := fsx.WriteFile(p, append(shards[p], old...)); err != nil {
			return nil, 0, err
		}
		changed = append(changed, p)
	}
	if len(keep) > 0 {
		if err := fsx.WriteFile(legacy, keep); err != nil {
			return nil, 0, err
		}
		if n == 0 {
			return changed, 0, nil
		}
	} else if err := os.Remove(legacy); err != nil {
		return nil, 0, err
	}
	return append(changed, legacy), n, nil
}
