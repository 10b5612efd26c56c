// Package sparse keeps a long-history workflow worktree a sparse checkout
// whose old DONE months git does not index, and their files on disk equal
// to the workflow branch all the same.
package sparse

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/burl-dev/burl/pkg/bucket"
	"github.com/burl-dev/burl/pkg/faults"
	"github.com/burl-dev/burl/pkg/fsx"
	"github.com/burl-dev/burl/pkg/gitobj"
	"github.com/burl-dev/burl/pkg/gitx"
	"github.com/burl-dev/burl/pkg/repo"
)

// A workflow with a long history keeps a file per task ever done, and git
// reads the whole index of the workflow worktree (100,000 entries, 10 MB,
// 33 MB of memory) on every commit, whatever it changes. Past
// sparseDoneDefault tasks done before this month, the workflow worktree
// gets a sparse index (git sparse-checkout, cone mode): every folder but
// the DONE months before this one is in the cone, and each of those months
// is a single index entry. The old months' files stay on disk, so that
// `ls`, status, show, doctor and every other reader see the same workflow
// as before (sparse.expectFilesOutsideOfPatterns); burl keeps them equal
// to the workflow branch when git moves it (materialize). The cone moves
// with the month: the first commit into a month outside it re-applies it.

const (
	sparseDoneDefault = 5000
	// coneMark heads the cone file burl writes. A cone file without it is
	// the user's own and is left alone.
	coneMark = "# burl: sparse workflow worktree (git burl init rewrites this file)"
	// stashName is where the old months wait, inside the worktree's git
	// directory (the same file system: a rename each), while git applies
	// the cone: `git sparse-checkout reapply` deletes every folder outside
	// the cone it finds on disk.
	stashName = "burl-sparse-stash"
)

// sparseDone is the number of tasks done before this month past which the
// workflow worktree goes sparse (BURL_SPARSE_DONE; 0 never).
func sparseDone() int {
	if v, err := strconv.Atoi(os.Getenv("BURL_SPARSE_DONE")); err == nil && v >= 0 {
		return v
	}
	return sparseDoneDefault
}

// Worktree is the workflow worktree, for its sparse checkout.
type Worktree struct {
	Repo          *repo.Repo
	bucket.Layout // its .workflow folder
	// Git runs git in the worktree.
	Git    gitx.Git
	Stderr io.Writer
}

func (w *Worktree) gitWT() gitx.Git { return w.Git }

// Rel renders a path relative to the repository root.
func (w *Worktree) Rel(p string) string { return w.Repo.Rel(p) }

// gitDir is the workflow worktree's own git directory, from its .git file.
func (w *Worktree) gitDir() (string, error) {
	b, err := os.ReadFile(filepath.Join(w.Repo.Worktree, ".git"))
	if err != nil {
		return "", err
	}
	d, ok := strings.CutPrefix(strings.TrimSpace(string(b)), "gitdir: ")
	if !ok {
		return "", fmt.Errorf("%s is not a worktree's .git file", w.Rel(filepath.Join(w.Repo.Worktree, ".git")))
	}
	if !filepath.IsAbs(d) {
		d = filepath.Join(w.Repo.Worktree, d)
	}
	return filepath.Clean(d), nil
}

// Cone is the set of folders, relative to the workflow worktree, that are
// in the sparse checkout; nil when burl does not manage one.
type Cone map[string]bool

// ReadCone reads the cone burl wrote; nil when there is none.
func (w *Worktree) ReadCone() Cone {
	gd, err := w.gitDir()
	if err != nil {
		return nil
	}
	b, err := os.ReadFile(filepath.Join(gd, "info", "sparse-checkout"))
	if err != nil || !bytes.HasPrefix(b, []byte(coneMark+"\n")) || !sparseOn(gd) {
		return nil
	}
	lines := map[string]bool{}
	for _, l := range strings.Split(string(b), "\n") {
		lines[l] = true
	}
	// A folder "/d/" is in the cone whole unless "!/d/*/" follows it: then
	// only its files are (a parent of a folder in the cone).
	c := Cone{}
	for l := range lines {
		if strings.HasPrefix(l, "/") && strings.HasSuffix(l, "/") && l != "/" && !lines["!"+l+"*/"] {
			c[strings.Trim(l, "/")] = true
		}
	}
	return c
}

// Sparse reports whether the workflow worktree is burl's sparse checkout,
// where git commands on the old months' files need --sparse.
func (w *Worktree) Sparse() bool { return w.ReadCone() != nil }

// sparseOn reports whether the worktree whose git directory is gd has
// core.sparseCheckout on in its own config (where burl sets it): after a
// `git sparse-checkout disable` burl's cone file is still there but every
// file is checked out again. Read from the file, not from git, because
// every commit asks.
func sparseOn(gd string) bool {
	b, err := os.ReadFile(filepath.Join(gd, "config.worktree"))
	if err != nil {
		return false
	}
	on, core := false, false
	for _, l := range strings.Split(string(b), "\n") {
		l = strings.ToLower(strings.TrimSpace(l))
		if strings.HasPrefix(l, "[") {
			core = l == "[core]"
			continue
		}
		if k, v, ok := strings.Cut(l, "="); ok && core && strings.TrimSpace(k) == "sparsecheckout" {
			on = strings.TrimSpace(v) == "true"
		}
	}
	return on
}

// has reports whether a path (relative to the workflow worktree, slashes)
// is checked out: a file of the root, of .workflow or of DONE itself, or
// anything under a folder of the cone.
func (c Cone) has(rel string) bool {
	dir := filepath.ToSlash(filepath.Dir(rel))
	if dir == "." || dir == ".workflow" || dir == ".workflow/"+string(bucket.Done) {
		return true
	}
	for d := dir; d != "." && d != "/"; d = filepath.ToSlash(filepath.Dir(d)) {
		if c[d] {
			return true
		}
	}
	return false
}

// coneName is a folder name that can be written in a cone file as it is.
var coneName = regexp.MustCompile(`^[A-Za-z0-9._-]+$`)

// wantCone is the cone for month: every folder of the workflow branch and
// of the disk, but DONE's months other than month.
func (w *Worktree) wantCone(month string) (dirs []string, old []string, err error) {
	// The folders of the three trees, read through the process's cat-file
	// (as ls-tree -d HEAD -- ./ .workflow/ .workflow/DONE/ lists them).
	within := []string{"", ".workflow/", ".workflow/" + string(bucket.Done) + "/"}
	var top []string
	err = w.gitWT().Cat([]string{"HEAD:", "HEAD:.workflow", "HEAD:.workflow/" + string(bucket.Done)}, true, func(i int, oid, kind string, body []byte) error {
		if kind != "tree" {
			if i == 0 {
				return fmt.Errorf("the workflow worktree's HEAD has no tree: %s", kind)
			}
			return nil
		}
		ents, err := gitobj.ParseTree(body, len(oid)/2)
		for name, e := range ents {
			if e.Dir() {
				top = append(top, within[i]+name)
			}
		}
		return err
	})
	if err != nil {
		return nil, nil, err
	}
	seen := map[string]bool{}
	add := func(rel string) {
		if !seen[rel] {
			seen[rel] = true
			dirs = append(dirs, rel)
		}
	}
	consider := func(rel string) error {
		base := filepath.Base(rel)
		if !coneName.MatchString(base) {
			return fmt.Errorf("the folder %s cannot be named in a sparse-checkout cone", rel)
		}
		switch parent := filepath.ToSlash(filepath.Dir(rel)); {
		case rel == ".workflow" || rel == ".workflow/"+string(bucket.Done):
		case parent == ".workflow/"+string(bucket.Done) && bucket.IsDoneShard(base) && base != month:
			if !seen[rel] {
				seen[rel] = true
				old = append(old, base)
			}
		default:
			add(rel)
		}
		return nil
	}
	for _, rel := range top {
		if rel != "" && rel != ".git" {
			if err := consider(rel); err != nil {
				return nil, nil, err
			}
		}
	}
	for _, parent := range []string{".", ".workflow", ".workflow/" + string(bucket.Done)} {
		ents, _ := os.ReadDir(filepath.Join(w.Repo.Worktree, parent))
		for _, e := range ents {
			if e.IsDir() && e.Name() != ".git" {
				if err := consider(filepath.ToSlash(filepath.Join(parent, e.Name()))); err != nil {
					return nil, nil, err
				}
			}
		}
	}
	// The machine-local folders, and PROPOSED, which the first proposal
	// makes, whether they exist yet or not: the cone then does not change
	// when they appear.
	add(".workflow/" + bucket.LocksDirName)
	add(".workflow/" + bucket.LogsDirName)
	add(".workflow/" + string(bucket.Proposed))
	add(".workflow/" + string(bucket.Done) + "/" + month)
	sort.Strings(dirs)
	sort.Strings(old)
	return dirs, old, nil
}

// coneFile renders dirs as a cone-mode sparse-checkout file.
func coneFile(dirs []string) []byte {
	var b bytes.Buffer
	b.WriteString(coneMark + "\n/*\n!/*/\n")
	parents := map[string]bool{}
	for _, d := range dirs {
		for p := filepath.ToSlash(filepath.Dir(d)); p != "."; p = filepath.ToSlash(filepath.Dir(p)) {
			parents[p] = true
		}
	}
	ps := make([]string, 0, len(parents))
	for p := range parents {
		ps = append(ps, p)
	}
	sort.Strings(ps)
	for _, p := range ps {
		fmt.Fprintf(&b, "/%s/\n!/%s/*/\n", p, p)
	}
	for _, d := range dirs {
		if !parents[d] {
			fmt.Fprintf(&b, "/%s/\n", d)
		}
	}
	return b.Bytes()
}

// ApplyCone makes the cone the one of month: for a worktree that is not
// sparse yet, only when the months before hold at least sparseDone tasks.
// The old months' folders are renamed into the stash while git applies
// the cone, and back after.
func (w *Worktree) ApplyCone(month string) error {
	gd, err := w.gitDir()
	if err != nil {
		return err
	}
	w.RestoreStash()
	dirs, old, err := w.wantCone(month)
	if err != nil {
		return err
	}
	current := w.ReadCone()
	if current == nil {
		min, n := sparseDone(), 0
		for _, m := range old {
			names, _ := bucket.Names(filepath.Join(w.BucketDir(bucket.Done), m))
			n += bucket.CountNames(names)
		}
		if min == 0 || n < min {
			return nil
		}
	}
	want := coneFile(dirs)
	file := filepath.Join(gd, "info", "sparse-checkout")
	if have, err := os.ReadFile(file); err == nil && bytes.Equal(have, want) && current != nil {
		return nil
	}
	g := w.gitWT()
	if current == nil {
		// A sparse index cannot be split (git keeps one of the two), and
		// the cone's settings belong to this worktree alone.
		if _, err := g.Run("update-index", "--no-split-index"); err != nil {
			return err
		}
		if _, err := g.Run("config", "extensions.worktreeConfig", "true"); err != nil {
			return err
		}
		for _, kv := range [][2]string{{"core.sparseCheckout", "true"}, {"core.sparseCheckoutCone", "true"},
			{"index.sparse", "true"}, {"sparse.expectFilesOutsideOfPatterns", "true"}} {
			if _, err := g.Run("config", "--worktree", kv[0], kv[1]); err != nil {
				return err
			}
		}
	}
	stash := filepath.Join(gd, stashName)
	if err := os.MkdirAll(stash, 0o755); err != nil {
		return err
	}
	doneDir := w.BucketDir(bucket.Done)
	for _, m := range old {
		if err := os.Rename(filepath.Join(doneDir, m), filepath.Join(stash, m)); err != nil && !os.IsNotExist(err) {
			w.RestoreStash()
			return err
		}
	}
	faults.CrashPoint("sparse", "stash")
	if err := fsx.WriteFile(file, want); err != nil {
		w.RestoreStash()
		return err
	}
	_, err = g.Run("sparse-checkout", "reapply")
	w.RestoreStash()
	return err
}

// RestoreStash puts back the old months a cone change (or a kill during
// one) left in the stash. A month git has checked out meanwhile (it is in
// the cone now) keeps git's files.
func (w *Worktree) RestoreStash() {
	gd, err := w.gitDir()
	if err != nil {
		return
	}
	stash := filepath.Join(gd, stashName)
	ents, err := os.ReadDir(stash)
	if err != nil {
		return
	}
	for _, e := range ents {
		from, to := filepath.Join(stash, e.Name()), filepath.Join(w.BucketDir(bucket.Done), e.Name())
		if _, err := os.Lstat(to); err == nil {
			_ = os.RemoveAll(from)
			continue
		}
		if err := os.Rename(from, to); err != nil {
			fmt.Fprintf(w.Stderr, "burl: warning: cannot put %s back into %s: %v\n", from, w.Rel(w.BucketDir(bucket.Done)), err)
		}
	}
	_ = os.Remove(stash)
}

// KeepCone moves the cone to the month of paths it commits into DONE: the
// first approve of a month. It runs after the commit, which git takes
// outside the cone too; a failure only costs speed, so it warns.
func (w *Worktree) KeepCone(c Cone, rels []string) {
	month := bucket.DoneShard(time.Now())
	for _, rel := range rels {
		if strings.HasPrefix(rel, ".workflow/"+string(bucket.Done)+"/"+month+"/") && !c.has(rel) {
			if err := w.ApplyCone(month); err != nil {
				fmt.Fprintf(w.Stderr, "burl: warning: cannot move the workflow worktree's sparse checkout to %s (%v); git burl init retries\n", month, err)
			}
			return
		}
	}
}

// Materialize writes to disk what git changed outside the cone when it
// moved the workflow branch from one commit to another (a pull, a reset):
// git updates only the index there.
func (w *Worktree) Materialize(from, to string) error {
	c := w.ReadCone()
	if c == nil || from == "" || to == "" || from == to {
		return nil
	}
	g := w.gitWT()
	out, err := g.RunInput(nil, "diff-tree", "-r", "-z", "--no-renames", from, to)
	if err != nil {
		return err
	}
	var write []string
	checked := map[string]bool{}
	f := strings.Split(string(out), "\x00")
	for i := 0; i+1 < len(f); i += 2 {
		meta, rel := f[i], f[i+1]
		fields := strings.Fields(meta)
		if len(fields) < 5 || c.has(rel) {
			continue
		}
		if err := w.checkOutside(rel, checked); err != nil {
			fmt.Fprintf(w.Stderr, "burl: warning: %v\n", err)
			continue
		}
		p := filepath.Join(w.Repo.Worktree, filepath.FromSlash(rel))
		switch newMode := fields[1]; {
		case fields[4] == "D":
			_ = os.Remove(p)
			_ = os.Remove(filepath.Dir(p))
		case newMode == "100644" || newMode == "100755":
			write = append(write, rel)
		}
	}
	return w.writeFrom(to, write)
}

// checkOutside refuses to write or delete a path from the workflow branch
// outside the cone that git itself would not check out (a control
// character, which would also break cat-file's one-name-a-line requests;
// an empty, ".", ".." or ".git" part), or that goes through a symbolic
// link on disk: the branch is untrusted input, and git, which does these
// checks for the cone, does not write these files. checked caches the
// folders found to be real.
func (w *Worktree) checkOutside(rel string, checked map[string]bool) error {
	refuse := func(why string) error {
		return fmt.Errorf("not writing %q from the workflow branch to %s: %s", rel, w.Rel(w.Repo.Worktree), why)
	}
	if gitx.HasControl(rel) {
		return refuse("the name holds a control character")
	}
	parts := strings.Split(rel, "/")
	for _, part := range parts {
		if part == "" || part == "." || part == ".." || strings.EqualFold(part, ".git") {
			return refuse("git refuses such a path")
		}
	}
	dir := w.Repo.Worktree
	for _, part := range parts[:len(parts)-1] {
		dir = filepath.Join(dir, part)
		if checked[dir] {
			continue
		}
		st, err := os.Lstat(dir)
		if os.IsNotExist(err) {
			return nil
		}
		if err == nil && !st.IsDir() {
			return refuse(w.Rel(dir) + " is not a folder (a symbolic link?)")
		}
		if err != nil {
			return refuse(err.Error())
		}
		checked[dir] = true
	}
	return nil
}

// writeBlobs writes the files rels of commit to disk, from one cat-file.
func (w *Worktree) writeBlobs(commit string, rels []string) error {
	names := make([]string, len(rels))
	for i, rel := range rels {
		names[i] = commit + ":" + rel
	}
	return gitobj.CatBatch(w.gitWT(), names, func(i int, _, kind string, body []byte) error {
		if kind != "blob" {
			return fmt.Errorf("%s is a %s in the workflow branch, not a file", names[i], kind)
		}
		p := filepath.Join(w.Repo.Worktree, filepath.FromSlash(rels[i]))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return err
		}
		return fsx.WriteFile(p, body)
	})
}

// MissingOutsideCone lists the committed files outside the cone of a
// sparse workflow worktree that are not on disk (worktree-relative): what
// a `git sparse-checkout` command run by hand in the worktree deletes.
// Nothing when the worktree is not sparse.
func (w *Worktree) MissingOutsideCone() ([]string, error) {
	c := w.ReadCone()
	if c == nil {
		return nil, nil
	}
	out, err := w.gitWT().RunInput(nil, "ls-tree", "-r", "-z", "--name-only", "HEAD")
	if err != nil {
		return nil, err
	}
	var missing []string
	checked := map[string]bool{}
	for _, rel := range strings.Split(string(out), "\x00") {
		if rel == "" || c.has(rel) || w.checkOutside(rel, checked) != nil {
			continue
		}
		if _, err := os.Lstat(filepath.Join(w.Repo.Worktree, filepath.FromSlash(rel))); os.IsNotExist(err) {
			missing = append(missing, rel)
		}
	}
	return missing, nil
}

// RestoreOutsideCone writes the files rels (MissingOutsideCone's) from the
// workflow branch.
func (w *Worktree) RestoreOutsideCone(rels []string) error { return w.writeFrom("HEAD", rels) }

// writeFrom writes the files rels of commit to disk, a thousand per git
// cat-file.
func (w *Worktree) writeFrom(commit string, rels []string) error {
	for len(rels) > 0 {
		n := min(len(rels), 1000)
		if err := w.writeBlobs(commit, rels[:n]); err != nil {
			return err
		}
		rels = rels[n:]
	}
	return nil
}
