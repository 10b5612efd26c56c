package gateinput

import (
	"bytes"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/burl-dev/burl/pkg/bucket"
	"github.com/burl-dev/burl/pkg/gitobj"
	"github.com/burl-dev/burl/pkg/gitx"
)

// A task's history since its claim, read through the process's one git
// cat-file (DESIGN §28) instead of a git log per submit and approve: the
// commits are read down HEAD's parents a batch at a time, and what each
// changed of the task file (in any bucket) is told by the file's blob id
// in each commit. The walk answers only where its answer is git log's: a
// merge commit (log's history simplification) or a history longer than
// historyLimit leaves the question to git.

// commit is one commit of the task's history: its id, its subject (burl's
// "burl: " taken off) and the task file's paths it changed (a move: the
// old and the new).
type commit struct {
	sha, subject string
	paths        []string
}

// historyLimit bounds the commits the walk reads; historyBatch is how
// many it asks for at once.
const (
	historyLimit = 400
	historyBatch = 32
)

// walked is one commit the walk read.
type walked struct {
	sha, subject string
	parents      int
}

// walkHistory lists, oldest first, the commits of HEAD since since that
// changed the task file named file in a folder of the workflow folder wf
// (as `git log --reverse --no-renames --name-only --since HEAD --
// :(glob)wf/*/file` would), and, for the commits named picks, the event
// log shards each changed. ok is false where git must answer.
func walkHistory(g gitx.Git, since time.Time, wf, file string, named func(subject string) bool) (cs []commit, shards map[string][]string, ok bool) {
	var head string
	if err := g.Cat([]string{"HEAD^{commit}"}, false, func(_ int, oid, kind string, _ []byte) error {
		if kind == "commit" {
			head = oid
		}
		return nil
	}); err != nil || head == "" {
		return nil, nil, false
	}
	// The window, newest first, and the commit below it ("" at a root).
	var window []walked
	below, done := "", false
	for n := 0; !done; n += historyBatch {
		if n >= historyLimit {
			return nil, nil, false
		}
		names := make([]string, historyBatch)
		for i := range names {
			names[i] = head + "~" + strconv.Itoa(n+i)
		}
		bad := false
		err := g.Cat(names, true, func(i int, oid, kind string, body []byte) error {
			if done || bad {
				return nil
			}
			if kind != "commit" {
				// Past the root: the commit before was one.
				done = true
				return nil
			}
			w, when, good := parseCommit(oid, body)
			switch {
			case !good:
				bad = true
			case when.Before(since):
				below, done = oid, true
			case w.parents > 1:
				bad = true
			default:
				window = append(window, w)
				if w.parents == 0 {
					done = true
				}
			}
			return nil
		})
		if err != nil || bad {
			return nil, nil, false
		}
	}
	if len(window) == 0 {
		return nil, map[string][]string{}, true
	}
	// Each commit's workflow folder, and below it, the file's blob in
	// each of its folders.
	revs := make([]string, 0, len(window)+1)
	for _, w := range window {
		revs = append(revs, w.sha)
	}
	if below != "" {
		revs = append(revs, below)
	}
	names := make([]string, len(revs))
	for i, r := range revs {
		names[i] = r + ":" + wf
	}
	folders := make([]map[string]gitobj.Entry, len(revs))
	err := g.Cat(names, true, func(i int, oid, kind string, body []byte) error {
		switch kind {
		case "tree":
			ents, err := gitobj.ParseTree(body, len(oid)/2)
			folders[i] = ents
			return err
		case "missing":
			folders[i] = map[string]gitobj.Entry{}
			return nil
		}
		return &notFolder{kind}
	})
	if err != nil {
		return nil, nil, false
	}
	var dirs []string
	seen := map[string]bool{}
	for _, f := range folders {
		for _, e := range f {
			if e.Dir() && !seen[e.OID] {
				seen[e.OID] = true
				dirs = append(dirs, e.OID)
			}
		}
	}
	blob := map[string]string{} // a folder's tree id → the file's blob there
	names = names[:0]
	for _, d := range dirs {
		names = append(names, d+":"+file)
	}
	bad := false
	if err := g.Cat(names, false, func(i int, oid, kind string, _ []byte) error {
		switch kind {
		case "blob":
			blob[dirs[i]] = oid
		case "missing":
		default:
			// Not a file by that name: git log would list what is under it.
			bad = true
		}
		return nil
	}); err != nil || bad {
		return nil, nil, false
	}
	// in is where the file is in revs[i]: folder name → blob id.
	in := func(i int) map[string]string {
		m := map[string]string{}
		if i >= len(revs) {
			return m
		}
		for name, e := range folders[i] {
			if b := blob[e.OID]; e.Dir() && b != "" {
				m[name] = b
			}
		}
		return m
	}
	shards = map[string][]string{}
	for i := len(window) - 1; i >= 0; i-- {
		now, before := in(i), in(i+1)
		var paths []string
		for name, b := range now {
			if before[name] != b {
				paths = append(paths, wf+"/"+name+"/"+file)
			}
		}
		for name := range before {
			if _, ok := now[name]; !ok {
				paths = append(paths, wf+"/"+name+"/"+file)
			}
		}
		if len(paths) == 0 {
			continue
		}
		sort.Strings(paths)
		c := commit{sha: window[i].sha, subject: window[i].subject, paths: paths}
		cs = append(cs, c)
		if named(c.subject) {
			var before map[string]gitobj.Entry
			if i+1 < len(revs) {
				before = folders[i+1]
			}
			ch, err := changedEvents(g, folders[i], before, wf)
			if err != nil {
				return nil, nil, false
			}
			shards[c.sha] = ch
		}
	}
	return cs, shards, true
}

// notFolder: the workflow folder's name is no folder in a commit.
type notFolder struct{ kind string }

func (e *notFolder) Error() string { return "the workflow folder is a " + e.kind }

// changedEvents lists the files of the event log that differ between two
// workflow folders (now, and before it: nil at a root), as paths from the
// worktree's root.
func changedEvents(g gitx.Git, now, before map[string]gitobj.Entry, wf string) ([]string, error) {
	ev := bucket.EventsDirName
	a, b := now[ev], before[ev]
	if a.OID == b.OID {
		return nil, nil
	}
	rawLen := len(a.OID) / 2
	if a.OID == "" {
		rawLen = len(b.OID) / 2
	}
	empty := gitobj.ID("tree", nil, rawLen)
	if a.OID == "" {
		a.OID = empty
	}
	if b.OID == "" {
		b.OID = empty
	}
	ch, err := gitobj.ChangedPaths(g, b.OID, a.OID)
	for i := range ch {
		ch[i] = wf + "/" + ev + "/" + ch[i]
	}
	return ch, err
}

// parseCommit reads a commit's parents, committer time and subject (its
// message's first paragraph on one line, as git log's %s).
func parseCommit(oid string, body []byte) (walked, time.Time, bool) {
	w := walked{sha: oid}
	hdr, msg, _ := bytes.Cut(body, []byte("\n\n"))
	var when time.Time
	for _, l := range strings.Split(string(hdr), "\n") {
		switch {
		case strings.HasPrefix(l, "parent "):
			w.parents++
		case strings.HasPrefix(l, "committer "):
			f := strings.Fields(l)
			if len(f) < 3 {
				return w, when, false
			}
			secs, err := strconv.ParseInt(f[len(f)-2], 10, 64)
			if err != nil {
				return w, when, false
			}
			when = time.Unix(secs, 0)
		}
	}
	if when.IsZero() {
		return w, when, false
	}
	para, _, _ := strings.Cut(strings.TrimLeft(string(msg), "\n"), "\n\n")
	var lines []string
	for _, l := range strings.Split(para, "\n") {
		lines = append(lines, strings.TrimRight(l, " \t"))
	}
	w.subject = strings.TrimPrefix(strings.TrimSpace(strings.Join(lines, " ")), "burl: ")
	return w, when, true
}
