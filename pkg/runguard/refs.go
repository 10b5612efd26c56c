package runguard

import (
	"bufio"
	"bytes"
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/burl-dev/burl/pkg/gitx"
)

// Refs is every ref of a git dir as its files hold them, loose over
// packed, read without starting git: a run without a sandbox is checked
// for what it moved by comparing two of them (DESIGN §19).
type Refs map[string]string

// ReadRefs reads the refs of commonDir: HEAD, everything under refs/ and
// packed-refs. A symbolic ref reads as "ref: <target>".
func ReadRefs(commonDir string) (Refs, error) {
	out := Refs{}
	err := eachLoose(commonDir, "refs", func(name, p string) {
		if v, ok := readLoose(p); ok {
			out[name] = v
		}
	})
	if err != nil {
		return nil, err
	}
	err = eachPacked(filepath.Join(commonDir, "packed-refs"), func(oid, name string) error {
		if _, ok := out[name]; !ok && name != "" {
			out[name] = oid
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	if v, ok := readLoose(filepath.Join(commonDir, "HEAD")); ok {
		out["HEAD"] = v
	}
	return out, nil
}

// eachLoose calls fn with the name and path of every file below
// commonDir/under but *.lock files, links and all, none followed. Loose
// refs are read before packed-refs, as git reads them: a ref only ever
// moves from its file to packed-refs (git pack-refs, gc), so one that
// moves between the two reads is found in the second.
func eachLoose(commonDir, under string, fn func(name, p string)) error {
	return filepath.WalkDir(filepath.Join(commonDir, filepath.FromSlash(under)), func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				return nil
			}
			return err
		}
		if d.IsDir() || strings.HasSuffix(p, ".lock") {
			return nil
		}
		rel, _ := filepath.Rel(commonDir, p)
		fn(filepath.ToSlash(rel), p)
		return nil
	})
}

// readLoose reads a loose ref. What is not a regular file (a link, a
// FIFO a run left to hang the reader) is not opened: it reads as its kind,
// which no ref's value is, and so as a change.
func readLoose(p string) (string, bool) {
	fi, err := os.Lstat(p)
	if err != nil {
		return "", false
	}
	if !fi.Mode().IsRegular() {
		return "not a ref file: " + fi.Mode().Type().String(), true
	}
	f, err := os.Open(p)
	if err != nil {
		return "", false
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, 4096))
	if err != nil {
		return "", false
	}
	return strings.TrimSpace(string(b)), true
}

// eachPacked calls fn with packed-refs' entries (not their peeled lines
// nor its header), as the object id and name the line holds.
func eachPacked(p string, fn func(oid, name string) error) error {
	f, err := os.Open(p)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		l := sc.Bytes()
		if len(l) == 0 || l[0] == '#' || l[0] == '^' {
			continue
		}
		if sha, name, ok := bytes.Cut(l, []byte{' '}); ok {
			if err := fn(string(sha), string(name)); err != nil {
				return err
			}
		} else if err := fn(string(l), ""); err != nil {
			return err
		}
	}
	return sc.Err()
}

// RefChange is one ref that differs between two reads; Old "" is a ref
// created, New "" one deleted.
type RefChange struct {
	Name, Old, New string
}

// Diff is what changed from before to after, by name.
func (before Refs) Diff(after Refs) []RefChange {
	var out []RefChange
	for n, v := range after {
		if before[n] != v {
			out = append(out, RefChange{Name: n, Old: before[n], New: v})
		}
	}
	for n, v := range before {
		if _, ok := after[n]; !ok {
			out = append(out, RefChange{Name: n, Old: v})
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

func (c RefChange) String() string {
	switch {
	case c.Old == "":
		return c.Name + " created at " + short(c.New)
	case c.New == "":
		return c.Name + " deleted (was " + short(c.Old) + ")"
	}
	return c.Name + " moved from " + short(c.Old) + " to " + short(c.New)
}

func short(v string) string {
	if len(v) > 12 && !strings.HasPrefix(v, "ref: ") {
		return v[:12]
	}
	return v
}

// undoLines is the `git update-ref --stdin` transaction putting changes
// back (a symbolic ref, which update-ref cannot set, is rewritten as its
// file by the caller).
func undoLines(changes []RefChange) (stdin []byte, symbolic []RefChange) {
	var b bytes.Buffer
	for _, c := range changes {
		if strings.HasPrefix(c.Old, "ref: ") || strings.HasPrefix(c.New, "ref: ") || c.Name == "HEAD" {
			symbolic = append(symbolic, c)
			continue
		}
		switch {
		case c.Old == "":
			b.WriteString("delete " + c.Name + " " + c.New + "\n")
		case c.New == "":
			b.WriteString("create " + c.Name + " " + c.Old + "\n")
		default:
			b.WriteString("update " + c.Name + " " + c.Old + " " + c.New + "\n")
		}
	}
	return b.Bytes(), symbolic
}

// refChanges names the refs that changed since the record and that
// explain does not give to burl, and puts them back: one update-ref
// transaction (each compare-and-swap from the value the run left), and
// symbolic refs rewritten as files.
func (g *Guard) refChanges(explain Explain) (changes []string, undone bool) {
	now, err := ReadRefs(g.spec.CommonDir)
	if err != nil {
		return []string{"the refs could not be read after the run: " + err.Error()}, false
	}
	var run []RefChange
	for _, c := range g.refs.Diff(now) {
		if explain != nil && explain(c) {
			continue
		}
		run = append(run, c)
		changes = append(changes, c.String())
	}
	if len(run) == 0 {
		return nil, true
	}
	undone = true
	stdin, symbolic := undoLines(run)
	if len(stdin) > 0 {
		git := gitx.Git{Dir: g.spec.Root, OwnRepo: true}
		if _, err := git.RunInput(append([]byte("start\n"), append(stdin, "commit\n"...)...), "update-ref", "--stdin"); err != nil {
			undone = false
		}
	}
	for _, c := range symbolic {
		p := filepath.Join(g.spec.CommonDir, filepath.FromSlash(c.Name))
		if c.Old == "" {
			if os.Remove(p) != nil {
				undone = false
			}
			continue
		}
		if os.MkdirAll(filepath.Dir(p), 0o755) != nil || os.WriteFile(p, []byte(c.Old+"\n"), 0o644) != nil {
			undone = false
		}
	}
	return changes, undone
}
