package sandbox

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/burl-dev/burl/pkg/bwrapbox"
	"github.com/burl-dev/burl/pkg/errs"
	"github.com/burl-dev/burl/pkg/osx"
	"github.com/burl-dev/burl/pkg/repo"
	"github.com/burl-dev/burl/pkg/runguard"
)

// makeGitDir writes the agent's git dir gd: HEAD on the task's branch at
// its current commit (returned), the shared branches, tags and
// remote-tracking refs as a packed snapshot (so `git log main..` works),
// the shared config with the worktree and hooks named, an empty object
// store whose alternate is the shared one, and a copy of the task's
// index. Everything in it is the agent's to change: burl reads back only
// the branch's ref and the objects, as files. The shared refs are read as
// files too (one git process fewer a run, DESIGN §28): the files
// for-each-ref read, in the shared git dir every box binds read-only, and
// before this run starts; none of the run's git dir. A link or a FIFO
// among them, which git would follow or open, is skipped.
func makeGitDir(r *repo.Repo, gd string, spec Spec, admin string) (string, error) {
	own := "refs/heads/" + spec.Branch
	refs, ok := runguard.ObjectRefs(r.CommonDir, sharedRefs...)
	before := refs[own]
	if !ok || before == "" {
		// What the files cannot say exactly (before is the compare-and-swap
		// base of the run's intake), git says.
		var err error
		if refs, err = forEachRef(r); err != nil {
			return "", err
		}
		before = refs[own]
	}
	if before == "" {
		return "", errs.New(errs.Git, "the task's branch %s does not exist", spec.Branch).
			WithFix("git burl doctor finds what happened to it")
	}
	delete(refs, own)
	names := make([]string, 0, len(refs))
	for name := range refs {
		names = append(names, name)
	}
	// Sorted by name, as the trait says (git then searches it).
	sort.Strings(names)
	var packed strings.Builder
	packed.WriteString("# pack-refs with: sorted \n")
	for _, name := range names {
		packed.WriteString(refs[name] + " " + name + "\n")
	}
	hooks := r.HooksDir()
	cfg, err := os.ReadFile(filepath.Join(r.CommonDir, "config"))
	if err != nil {
		return "", err
	}
	// The shared settings (identity, remotes, burl's keys, extensions),
	// then what makes this a git dir of its own for the worktree; the
	// hooks stay the repository's (they run inside the sandbox).
	cfg, _ = bwrapbox.StripCredentials(cfg)
	cfg = append(cfg, fmt.Sprintf("\n[core]\n\tbare = false\n\tworktree = %s\n\thooksPath = %s\n", quote(spec.Worktree), quote(hooks))...)
	files := map[string][]byte{
		"HEAD":                    []byte("ref: " + own + "\n"),
		filepath.FromSlash(own):   []byte(before + "\n"),
		"packed-refs":             []byte(packed.String()),
		"config":                  cfg,
		"objects/info/alternates": []byte(filepath.Join(r.CommonDir, "objects") + "\n"),
		"description":             []byte("the git dir of one agent run: burl takes back its branch's commits, nothing else\n"),
	}
	for _, name := range []string{"info/exclude", "info/attributes", "shallow"} {
		if data, err := os.ReadFile(filepath.Join(r.CommonDir, filepath.FromSlash(name))); err == nil {
			files[name] = data
		}
	}
	for _, d := range []string{"objects/pack", "refs/tags", "info", "hooks", "logs/refs/heads"} {
		if err := os.MkdirAll(filepath.Join(gd, filepath.FromSlash(d)), 0o755); err != nil {
			return "", err
		}
	}
	for name, data := range files {
		p := filepath.Join(gd, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return "", err
		}
		if err := os.WriteFile(p, data, 0o644); err != nil {
			return "", err
		}
	}
	if err := copyIndex(r, admin, filepath.Join(gd, "index"), before, spec.Worktree); err != nil {
		return "", err
	}
	return before, nil
}

// sharedRefs are the refs the run's git dir gets a copy of.
var sharedRefs = []string{"refs/heads/", "refs/remotes/", "refs/tags/"}

// forEachRef is what ObjectRefs reads, asked of git.
func forEachRef(r *repo.Repo) (map[string]string, error) {
	out, err := gitIn(r.CommonDir, "GIT_DIR="+r.CommonDir).Run(append([]string{"for-each-ref", "--format=%(objectname) %(refname)"}, sharedRefs...)...)
	if err != nil {
		return nil, err
	}
	refs := map[string]string{}
	for _, l := range strings.Split(out, "\n") {
		if oid, name, ok := strings.Cut(l, " "); ok {
			refs[name] = oid
		}
	}
	return refs, nil
}

// fixed are the parts of the run's git dir that are burl's, not the
// run's: its config, hooks, info and alternates. Under bubblewrap they are
// read-only; without, a change there fails the run as any tampering does.
var fixed = []string{"config", "hooks", "info", "objects/info/alternates"}

// snapshot is every regular file under the fixed parts of gd, by path
// below gd, with its bytes (a link or anything else as its kind).
func snapshot(gd string) map[string]string {
	out := map[string]string{}
	for _, name := range fixed {
		root := filepath.Join(gd, name)
		_ = filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
			rel, _ := filepath.Rel(gd, p)
			switch {
			case err != nil:
				out[rel] = "unreadable"
			case d.IsDir():
			case d.Type().IsRegular():
				data, err := osx.ReadFileNoFollow(p)
				if err != nil {
					data = []byte("unreadable")
				}
				out[rel] = string(data)
			default:
				out[rel] = d.Type().String()
			}
			return nil
		})
	}
	return out
}

// copyIndex gives the run the task's index, so that `git status` there
// starts clean and fast. A split index (its shared part lives beside it)
// is rebuilt from the commit instead.
func copyIndex(r *repo.Repo, admin, dst, commit, wt string) error {
	if m, _ := filepath.Glob(filepath.Join(admin, "sharedindex.*")); len(m) == 0 {
		if f, err := osx.OpenInside(admin, "index", false); err == nil {
			defer f.Close()
			out, err := os.OpenFile(dst, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o644)
			if err != nil {
				return err
			}
			_, err = io.Copy(out, f)
			if cerr := out.Close(); err == nil {
				err = cerr
			}
			return err
		}
	}
	_, err := gitIn(wt, "GIT_DIR="+r.CommonDir, "GIT_WORK_TREE="+wt, "GIT_INDEX_FILE="+dst).Run("read-tree", commit)
	return err
}

// quote is a git config value that reads back as s.
func quote(s string) string {
	return `"` + strings.NewReplacer(`\`, `\\`, `"`, `\"`, "\n", `\n`, "\t", `\t`).Replace(s) + `"`
}

// AdminDir is the task worktree's real git dir, found from the shared
// git dir's own records (worktrees/*/gitdir), never from the worktree's
// .git, which a run could have rewritten.
func AdminDir(r *repo.Repo, wt string) (string, error) {
	want := map[string]bool{filepath.Join(filepath.Clean(wt), ".git"): true}
	if real, err := filepath.EvalSymlinks(wt); err == nil {
		want[filepath.Join(real, ".git")] = true
	}
	base := filepath.Join(r.CommonDir, "worktrees")
	ents, err := os.ReadDir(base)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return "", err
	}
	for _, e := range ents {
		if !e.IsDir() {
			continue
		}
		data, err := osx.ReadFileNoFollow(filepath.Join(base, e.Name(), "gitdir"))
		if err == nil && want[filepath.Clean(strings.TrimSpace(string(data)))] {
			return filepath.Join(base, e.Name()), nil
		}
	}
	return "", errs.New(errs.Git, "%s is not a worktree git knows of (no %s/*/gitdir names it)", wt, base).
		WithFix("git worktree prune, then git burl doctor --repair")
}

// setGitfile points the worktree's .git file at gitDir (sandbox: none).
func setGitfile(wt, gitDir string) error {
	p := filepath.Join(wt, ".git")
	st, err := os.Lstat(p)
	if err != nil {
		return err
	}
	if !st.Mode().IsRegular() {
		return fmt.Errorf("%s is not a git file (%s): not a worktree burl made", p, st.Mode().Type())
	}
	return replaceFile(wt, ".git", []byte("gitdir: "+gitDir+"\n"))
}

// restoreGitfile makes the worktree's .git the file git wrote, naming its
// git dir admin, whatever is at its place (a file, a link, a directory:
// removed, never followed). The worktree itself must still be a
// directory, not a link elsewhere.
func restoreGitfile(wt, admin string) error {
	st, err := os.Lstat(wt)
	if err != nil {
		return err
	}
	if !st.IsDir() {
		return fmt.Errorf("%s is no longer a directory (%s): its .git file is not put back there", wt, st.Mode().Type())
	}
	want := []byte("gitdir: " + admin + "\n")
	p := filepath.Join(wt, ".git")
	if cur, err := os.Lstat(p); err == nil {
		if cur.Mode().IsRegular() {
			if data, err := osx.ReadFileNoFollow(p); err == nil && bytes.Equal(data, want) {
				return nil
			}
		}
		if cur.IsDir() {
			if err := os.RemoveAll(p); err != nil {
				return err
			}
		}
	}
	return replaceFile(wt, ".git", want)
}

// replaceFile writes dir/name in one rename, replacing a file or link
// there (not what a link points to).
func replaceFile(dir, name string, data []byte) error {
	tmp, err := os.CreateTemp(dir, ".burl-"+name+"-*")
	if err != nil {
		return err
	}
	_, err = tmp.Write(data)
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Chmod(tmp.Name(), 0o644)
	}
	if err == nil {
		err = os.Rename(tmp.Name(), filepath.Join(dir, name))
	}
	if err != nil {
		os.Remove(tmp.Name())
	}
	return err
}

// gitfileRestored reports whether the worktree's .git is the file git
// wrote for admin.
func gitfileRestored(wt, admin string) bool {
	data, err := osx.ReadFileNoFollow(filepath.Join(wt, ".git"))
	return err == nil && string(data) == "gitdir: "+admin+"\n"
}
