package record

import (
	"bufio"
	"bytes"
	"fmt"
	"math/rand/v2"
	"path"
	"sort"
	"strings"
	"time"

	"github.com/burl-dev/burl/pkg/config"
	"github.com/burl-dev/burl/pkg/errs"
	"github.com/burl-dev/burl/pkg/gitobj"
	"github.com/burl-dev/burl/pkg/gitx"
	"github.com/burl-dev/burl/pkg/notes"
	"github.com/burl-dev/burl/pkg/task"
)

// What verify reads, all of it from git objects: the workflow branch (its
// config, event log and task files), the notes and main's history. No
// worktree, no network: any clone that fetched the workflow branch and
// the notes can run it.

// workflowDir is the workflow's folder on the workflow branch.
const workflowDir = ".workflow"

// state is the workflow branch as verify lists it.
type state struct {
	ref string // the ref read (local branch or remote-tracking)
	// shards are the event log's files (blob ids) but the first (first),
	// which verify reads before.
	shards []string
	first  string
	// buckets maps a task ID to the bucket its file is in.
	buckets map[string]string
}

// landing is a landing event that recorded a landing record.
type landing struct {
	task, hash, merged string
}

// logIndex is what verify needs of the event log.
type logIndex struct {
	initMain  string    // main's commit when init ran ("" when not recorded)
	initAt    time.Time // when init ran
	landings  map[string][]landing
	byMerged  map[string]landing
	cancelled map[string]bool
}

// refs lists the refs verify may read, with one git for-each-ref.
func refs(g gitx.Git, branch string) (map[string]string, error) {
	out, err := g.Run("for-each-ref", "--format=%(objectname) %(refname)",
		"refs/heads/"+branch, "refs/remotes/*/"+branch, notes.Ref, "refs/burl/notes/")
	if err != nil {
		return nil, err
	}
	m := map[string]string{}
	for _, l := range strings.Split(out, "\n") {
		if sha, ref, ok := strings.Cut(l, " "); ok {
			m[ref] = sha
		}
	}
	return m, nil
}

// workflowRef picks the workflow branch to read: the local one, or the
// remote's when this clone has none (a CI checkout) or when it is behind
// the remote's (fetched, not pulled).
func workflowRef(g gitx.Git, branch string, have map[string]string) (string, error) {
	local := "refs/heads/" + branch
	var remotes []string
	for ref := range have {
		if strings.HasPrefix(ref, "refs/remotes/") && strings.HasSuffix(ref, "/"+branch) {
			remotes = append(remotes, ref)
		}
	}
	sort.Slice(remotes, func(i, j int) bool {
		// origin first: the usual name of the remote everyone shares.
		oi, oj := remotes[i] == "refs/remotes/origin/"+branch, remotes[j] == "refs/remotes/origin/"+branch
		return oi && !oj || oi == oj && remotes[i] < remotes[j]
	})
	if have[local] == "" {
		if len(remotes) == 0 {
			return "", errs.New(errs.User, "this clone has no workflow branch %s (nor a remote's copy of it): there is nothing to check the landing records against", branch).
				WithFix("fetch it: git fetch origin %s:refs/remotes/origin/%s (and the records: git fetch origin %s:%s)", branch, branch, notes.Ref, notes.Ref)
		}
		return remotes[0], nil
	}
	for _, r := range remotes {
		if have[r] == have[local] {
			continue
		}
		if behind, err := g.Test("merge-base", "--is-ancestor", have[local], have[r]); err == nil && behind {
			return r, nil
		}
	}
	return local, nil
}

// readConfig reads the workflow branch's config.yaml with rd (the
// defaults when there is none).
func readConfig(rd *gitobj.Reader, ref string) (*config.Config, error) {
	_, kind, body, err := rd.Read(ref + ":" + workflowDir + "/config.yaml")
	if err != nil || kind != "blob" {
		return config.Default(), err
	}
	c, err := config.Parse(workflowDir+"/config.yaml", body)
	if err != nil {
		return nil, errs.New(errs.User, "the workflow branch's config.yaml (%s) does not parse: %v", ref, err).
			WithFix("fix it on the workflow branch, or pass the range to check: git burl verify A..B")
	}
	return c, nil
}

// firstFile is the path of the event log's first file on the workflow
// branch ("" when it has none): the single file of earlier versions, else
// the first day's shard, found down the year and month folders with rd
// (three small trees, not a listing of the log).
func firstFile(rd *gitobj.Reader, ref string) (string, error) {
	dir := workflowDir + "/events"
	if _, kind, _, err := rd.Read(ref + ":" + dir + "/events.ndjson"); err != nil || kind == "blob" {
		return dir + "/events.ndjson", err
	}
	for depth := 0; depth < 3; depth++ {
		oid, kind, body, err := rd.Read(ref + ":" + dir)
		if err != nil || kind != "tree" {
			return "", err
		}
		ents, err := gitobj.ParseTree(body, len(oid)/2)
		if err != nil {
			return "", err
		}
		first := ""
		for name, e := range ents {
			day, file := strings.CutSuffix(name, ".ndjson")
			if depth < 2 && e.Dir() && strings.Trim(name, "0123456789") == "" || depth == 2 && file && !e.Dir() && day != "" {
				if first == "" || name < first {
					first = name
				}
			}
		}
		if first == "" {
			return "", nil
		}
		dir += "/" + first
	}
	return dir, nil
}

// readState lists the workflow branch's files with one git ls-tree: the
// bucket of every task, and the event log's files other than skip (blob
// ids).
func readState(g gitx.Git, ref, skip string) (*state, error) {
	st := &state{ref: ref, buckets: map[string]string{}}
	out, err := g.RunInput(nil, "ls-tree", "-r", "-z", "--full-tree", ref, "--", workflowDir)
	if err != nil {
		return nil, err
	}
	for _, ent := range bytes.Split(out, []byte{0}) {
		meta, p, ok := bytes.Cut(ent, []byte{'\t'})
		if !ok {
			continue
		}
		f := strings.Fields(string(meta))
		if len(f) != 3 || f[1] != "blob" {
			continue
		}
		rel := strings.TrimPrefix(string(p), workflowDir+"/")
		if strings.HasPrefix(rel, "events/") && strings.HasSuffix(rel, ".ndjson") {
			if string(p) == skip {
				st.first = f[2]
			} else {
				st.shards = append(st.shards, f[2])
			}
			continue
		}
		bucket, _, _ := strings.Cut(rel, "/")
		if id, ok := task.IDFromFileName(path.Base(rel)); ok {
			if prev, dup := st.buckets[id]; !dup || prev != "DONE" {
				st.buckets[id] = bucket
			}
		}
	}
	return st, nil
}

// eventLine is the part of an event verify reads.
type eventLine struct {
	ts, task, action                      string
	record, merged, submitted, mainAtInit string
}

// decode reads the fields of an event line verify needs (see scan.go).
func (e *eventLine) decode(line []byte) error {
	return walkJSON(line, func(p [][]byte, v val) error {
		var dst *string
		switch {
		case len(p) == 1 && string(p[0]) == "ts":
			dst = &e.ts
		case len(p) == 1 && string(p[0]) == "task":
			dst = &e.task
		case len(p) == 1 && string(p[0]) == "action":
			dst = &e.action
		case len(p) == 2 && string(p[0]) == "details":
			switch string(p[1]) {
			case KeyRecord:
				dst = &e.record
			case "merged_sha":
				dst = &e.merged
			case "submitted_sha":
				dst = &e.submitted
			case "main_sha":
				dst = &e.mainAtInit
			}
		}
		if dst == nil || v.raw[0] != '"' {
			return nil
		}
		return setString(dst, v)
	})
}

// What verify looks for in the event log: the events that recorded a
// landing record, init, and cancellations (git burl cancel's event; a task
// is cancelled before it lands, never after).
var (
	keyRecord = []byte(KeyRecord + `":"`) // no quote first: one in every few bytes of JSON is one
	keyInit   = []byte(`"action":"init"`)
	keyCancel = []byte(`"action":"cancel"`)
)

// readLog fills ix from the event log's files (blob ids) with one git
// cat-file, each file searched while git reads the next.
func (ix *logIndex) readLog(g gitx.Git, shards []string) error {
	bodies := make(chan []byte, 64)
	done := make(chan struct{})
	go func() {
		for b := range bodies {
			scan(b, [][]byte{keyRecord, keyInit, keyCancel}, ix.line)
		}
		close(done)
	}()
	err := gitobj.CatBatch(g, shards, func(_ int, _, kind string, body []byte) error {
		if kind == "blob" {
			bodies <- body
		}
		return nil
	})
	close(bodies)
	<-done
	return err
}

// scan hands each line of data that holds one of keys to each, once,
// found by one search through data per key (not one per line).
func scan(data []byte, keys [][]byte, each func(line []byte)) {
	done := map[int]bool{}
	for _, key := range keys {
		for off := 0; ; {
			i := bytes.Index(data[off:], key)
			if i < 0 {
				break
			}
			at := off + i
			start := bytes.LastIndexByte(data[:at], '\n') + 1
			end := bytes.IndexByte(data[at:], '\n')
			if end < 0 {
				end = len(data)
			} else {
				end += at
			}
			if !done[start] {
				done[start] = true
				each(data[start:end])
			}
			off = end
		}
	}
}

// line takes one event line in.
func (ix *logIndex) line(line []byte) {
	var e eventLine
	if e.decode(line) != nil {
		return
	}
	switch {
	case e.action == "init":
		// The first init, whatever file order the log is read in.
		if at, err := time.Parse(time.RFC3339, e.ts); err == nil && (ix.initAt.IsZero() || at.Before(ix.initAt)) {
			ix.initAt, ix.initMain = at, e.mainAtInit
		}
	case e.record != "" && e.task != "":
		l := landing{task: e.task, hash: e.record, merged: e.merged}
		ix.landings[e.task] = append(ix.landings[e.task], l)
		if l.merged != "" {
			ix.byMerged[l.merged] = l
		}
	case e.action == "cancel" && e.task != "":
		ix.cancelled[e.task] = true
	}
}

// first reads the log's first file (where init is, which the default
// range starts from) with rd; readLog reads the others.
func (ix *logIndex) first(rd *gitobj.Reader, ref, file string) error {
	if file == "" {
		return nil
	}
	_, kind, body, err := rd.Read(ref + ":" + file)
	if err == nil && kind == "blob" {
		scan(body, [][]byte{keyRecord, keyInit, keyCancel}, ix.line)
	}
	return err
}

func newLogIndex() *logIndex {
	return &logIndex{landings: map[string][]landing{}, byMerged: map[string]landing{}, cancelled: map[string]bool{}}
}

// walked is one commit of main's first-parent history, with the hash of
// its note (note: it has one).
type walked struct {
	sha, tree, author, subject, trailer string
	parents                             int
	note                                bool
	hash                                string
}

// notes are the landing records as walk read them, parsed once each
// (a landing of several commits gives each the same note): by sha256.
type noteSet map[string]*parsed

// walk lists the first-parent commits of rng, newest first, with their
// notes of notesRef, in one git log: the log walk and the notes read that
// git log --notes does, and no more. Each commit starts with a NUL and a
// marker drawn for this run, then its fields, NUL-separated (no commit
// field can hold a NUL); its note comes last, whatever bytes it holds: it
// cannot forge the next commit's start, as it cannot know the marker.
func walk(g gitx.Git, rng []string, notesRef string, ns noteSet) ([]walked, error) {
	marker := fmt.Sprintf("\x00burl-%016x%016x\x00", rand.Uint64(), rand.Uint64())
	format := "--format=" + strings.ReplaceAll(marker, "\x00", "%x00") +
		"%H%x00%T%x00%P%x00%an <%ae>%x00%s%x00%(trailers:key=Burl-Task,valueonly,separator=%x2C)%x00%N"
	args := append([]string{"log", "--first-parent", "--no-show-signature", "--no-notes", "--notes=" + notesRef, format}, rng...)
	// Into a pipe git log writes each commit as it goes (a write, and a
	// wakeup here, per commit); GIT_FLUSH=0 has it fill its buffer first,
	// as it does into a file.
	g.Env = append(g.Env[:len(g.Env):len(g.Env)], "GIT_FLUSH=0")
	p, err := g.Start(append(args, "--")...)
	if err != nil {
		return nil, err
	}
	sc := bufio.NewScanner(p.Stdout())
	sc.Buffer(make([]byte, 64<<10), 256<<20)
	sep := []byte(marker)
	sc.Split(func(data []byte, atEOF bool) (int, []byte, error) {
		start := bytes.Index(data, sep)
		if start < 0 {
			if atEOF && len(bytes.TrimSpace(data)) > 0 {
				return 0, nil, fmt.Errorf("git log: output without the commit marker")
			}
			if atEOF {
				return len(data), nil, nil
			}
			return 0, nil, nil
		}
		next := bytes.Index(data[start+len(sep):], sep)
		if next < 0 {
			if !atEOF {
				return 0, nil, nil
			}
			return len(data), data[start+len(sep):], nil
		}
		end := start + len(sep) + next
		return end, data[start+len(sep) : end], nil
	})
	var cs []walked
	var failed error
	for sc.Scan() {
		f := bytes.SplitN(sc.Bytes(), []byte{0}, 7)
		if len(f) != 7 {
			failed = fmt.Errorf("git log: a commit with %d fields", len(f))
			p.Kill()
			break
		}
		w := walked{sha: string(f[0]), tree: string(f[1]), parents: len(bytes.Fields(f[2])),
			author: string(f[3]), subject: string(f[4]), trailer: string(bytes.TrimSpace(f[5]))}
		// git log ends every commit's text with a line break (tformat).
		if note := bytes.TrimSuffix(f[6], []byte("\n")); len(note) > 0 {
			w.note, w.hash = true, notes.Hash(note)
			if ns[w.hash] == nil {
				pr := &parsed{hash: w.hash}
				var ok bool
				if pr.sum, ok = quickSummary(note); !ok {
					r, err := Parse(note)
					if pr.err = err; err == nil {
						pr.sum = summarize(r)
					}
				}
				ns[w.hash] = pr
			}
		}
		cs = append(cs, w)
	}
	if failed != nil {
		return nil, failed
	}
	if err := sc.Err(); err != nil {
		p.Kill()
		return nil, err
	}
	return cs, p.Wait()
}

// bad is the error of a revision verify cannot resolve.
func bad(rev string, shallow bool) error {
	e := errs.New(errs.User, "no commit %q in this clone", rev)
	if shallow {
		return e.WithFix("this clone is shallow: fetch the whole history (git fetch --unshallow; in CI, fetch-depth: 0), or name a range inside what it has")
	}
	return e.WithFix("name a commit or a range of this clone: git burl verify [A..B | REV]")
}

// describe names what a commit burl did not land looks like; submitted
// maps the commits tasks submitted to their task (empty until refine
// reads the log for it), cancelled the tasks git burl cancel ended.
func describe(c walked, submitted map[string]string, cancelled map[string]bool) (looks, reason string) {
	id := submitted[c.sha]
	if id == "" {
		id = c.trailer
	}
	switch {
	case cancelled[id]:
		return "cancelled_work", fmt.Sprintf("work of %s, which was cancelled (resolution: cancelled): it reached main without landing", id)
	case c.trailer != "":
		return "agent_push", fmt.Sprintf("an agent's commit (Burl-Task: %s) that reached main without burl's approve", c.trailer)
	case submitted[c.sha] != "":
		return "task_work", fmt.Sprintf("%s's submitted work, merged into main by hand: no gate ran on it there (git burl approve --accept-landed %s)", id, id)
	case c.parents > 1:
		return "hand_merge", "a merge by " + c.author + " that burl did not make"
	}
	return "hand_commit", "a commit by " + c.author + " that did not come through burl"
}

// submittedIn reads the submit events of the log: which task submitted
// which commit. Only a verification that found commits burl did not land
// pays for it.
func submittedIn(g gitx.Git, shards []string) (map[string]string, error) {
	m := map[string]string{}
	err := gitobj.CatBatch(g, shards, func(_ int, _, kind string, body []byte) error {
		scan(body, [][]byte{[]byte(`"action":"submit"`)}, func(line []byte) {
			var e eventLine
			if e.decode(line) == nil && e.action == "submit" && e.task != "" && e.submitted != "" {
				m[e.submitted] = e.task
			}
		})
		return nil
	})
	return m, err
}
