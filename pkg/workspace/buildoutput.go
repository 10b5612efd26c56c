package workspace

import (
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/burl-dev/burl/pkg/fsx"
	"github.com/burl-dev/burl/pkg/gitx"
)

// A build burl runs in a task worktree (validate's, approve's, the queue's
// bisection) may leave files there: compiler output nobody put in
// .gitignore. They are the build's, not the worker's, and must never make
// a task look unfinished. Files untracked before the build started are the
// worker's and still count. So each build burl runs is bracketed by a
// snapshot of the untracked files, and what appeared during it is recorded
// in the worktree's own git directory (it goes with the worktree).
const buildOutputFile = "burl-build-output"

// Untracked is the set of untracked, not ignored files of the worktree g
// runs in, relative to its top.
func Untracked(g gitx.Git) (map[string]bool, error) {
	out, err := g.RunInput(nil, "ls-files", "-z", "--others", "--exclude-standard")
	if err != nil {
		return nil, err
	}
	set := map[string]bool{}
	for _, p := range strings.Split(string(out), "\x00") {
		if p != "" {
			set[p] = true
		}
	}
	return set, nil
}

// RecordBuildOutput adds to the worktree's record the untracked files that
// are there now and were not in before (the snapshot taken just before a
// build ran).
func RecordBuildOutput(g gitx.Git, before map[string]bool) error {
	now, err := Untracked(g)
	if err != nil {
		return err
	}
	rec := buildOutput(g.Dir)
	n := len(rec)
	for p := range now {
		if !before[p] {
			rec[p] = true
		}
	}
	if len(rec) == n {
		return nil
	}
	names := make([]string, 0, len(rec))
	for p := range rec {
		names = append(names, p)
	}
	sort.Strings(names)
	return fsx.WriteFile(filepath.Join(GitDir(g.Dir), buildOutputFile), []byte(strings.Join(names, "\x00")+"\x00"))
}

// buildOutput is the record of the worktree at dir: the files builds burl
// ran there created.
func buildOutput(dir string) map[string]bool {
	set := map[string]bool{}
	data, err := os.ReadFile(filepath.Join(GitDir(dir), buildOutputFile))
	if err != nil {
		return set
	}
	for _, p := range strings.Split(string(data), "\x00") {
		if p != "" {
			set[p] = true
		}
	}
	return set
}

// Uncommitted is what `git status --porcelain --untracked-files=all` shows
// in the worktree g runs in, one "XY path" a line, less the untracked
// files builds burl ran there left: the worker's uncommitted changes.
// onlyBuild reports that the worktree holds build output and nothing else
// uncommitted, so that removing it loses nothing of the worker's.
func Uncommitted(g gitx.Git) (changes string, onlyBuild bool, err error) {
	changes, onlyBuild, _, err = UncommittedAt(g)
	return changes, onlyBuild, err
}

// UncommittedAt is Uncommitted and the commit the worktree's HEAD is at
// ("" before its first commit), from the same git status (its porcelain
// v2 names HEAD's commit): submit and approve need both, and a git
// rev-parse HEAD more is a process more (DESIGN §28).
func UncommittedAt(g gitx.Git) (changes string, onlyBuild bool, head string, err error) {
	raw, err := g.RunInput(nil, "status", "--porcelain=v2", "--branch", "-z", "--untracked-files=all")
	if err != nil {
		return "", false, "", err
	}
	var rec map[string]bool
	var lines []string
	built := false
	entries := strings.Split(string(raw), "\x00")
	for i := 0; i < len(entries); i++ {
		e := entries[i]
		// The v2 entries, "XY path" as v1 shows them ("." is v1's " "):
		// "1 XY sub mH mI mW hH hI path", "2 ... Xscore path" and its
		// source in the next entry, "u XY sub m1 m2 m3 mW h1 h2 h3 path",
		// "? path".
		var xy, p string
		switch {
		case strings.HasPrefix(e, "# branch.oid "):
			if oid := strings.TrimPrefix(e, "# branch.oid "); oid != "(initial)" {
				head = oid
			}
			continue
		case strings.HasPrefix(e, "1 "):
			f := strings.SplitN(e, " ", 9)
			if len(f) < 9 {
				continue
			}
			xy, p = f[1], f[8]
		case strings.HasPrefix(e, "2 "):
			f := strings.SplitN(e, " ", 10)
			if len(f) < 10 {
				continue
			}
			xy, p = f[1], f[9]
			i++
		case strings.HasPrefix(e, "u "):
			f := strings.SplitN(e, " ", 11)
			if len(f) < 11 {
				continue
			}
			xy, p = f[1], f[10]
		case strings.HasPrefix(e, "? "):
			xy, p = "??", e[2:]
		default:
			continue
		}
		xy = strings.ReplaceAll(xy, ".", " ")
		if xy == "??" {
			if rec == nil {
				rec = buildOutput(g.Dir)
			}
			if rec[p] {
				built = true
				continue
			}
		}
		lines = append(lines, xy+" "+p)
	}
	return strings.Join(lines, "\n"), built && len(lines) == 0, head, nil
}
