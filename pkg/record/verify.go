package record

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"github.com/burl-dev/burl/pkg/errs"
	"github.com/burl-dev/burl/pkg/gitobj"
	"github.com/burl-dev/burl/pkg/gitx"
	"github.com/burl-dev/burl/pkg/notes"
	"github.com/burl-dev/burl/pkg/repo"
)

// Options is what git burl verify was asked.
type Options struct {
	// Range is "A..B", a single revision (init..REV), or "" (init..main).
	Range string
	// Allow names commits accepted whatever they are.
	Allow []string
	// Signed also requires good signatures (see signatures).
	Signed bool
}

// A commit's status.
const (
	Landed    = "landed"     // ✓ landed by burl, its record matches
	NotLanded = "not_landed" // ✗ no landing record: a hand commit, an agent's push
	Mismatch  = "mismatch"   // ! a record that does not match
)

// Commit is what verify says of one commit.
type Commit struct {
	Commit  string `json:"commit"`
	Subject string `json:"subject"`
	Status  string `json:"status"`
	// Allowed: named by --allow, so it does not fail the check.
	Allowed bool   `json:"allowed"`
	Task    string `json:"task,omitempty"`
	Title   string `json:"title,omitempty"`
	Landing string `json:"landing,omitempty"`
	// Gates are the gates that ran and passed (those with nothing to run
	// left out).
	Gates      []string `json:"gates,omitempty"`
	Agent      string   `json:"agent,omitempty"`
	Model      string   `json:"model,omitempty"`
	ApprovedBy string   `json:"approved_by,omitempty"`
	LandedAt   string   `json:"landed_at,omitempty"`
	// LooksLike is what a commit burl did not land seems to be:
	// hand_commit, hand_merge, agent_push, task_work or cancelled_work.
	LooksLike string `json:"looks_like,omitempty"`
	Reason    string `json:"reason,omitempty"`
}

// Report is a verification.
type Report struct {
	// From and To bound the range: main's first-parent commits after
	// From ("" when the range starts at the root) up to To.
	From       string   `json:"from"`
	To         string   `json:"to"`
	MainBranch string   `json:"main_branch"`
	Workflow   string   `json:"workflow_ref"`
	Notes      string   `json:"notes_ref"`
	Commits    []Commit `json:"commits"`
	Counts     Counts   `json:"counts"`
	// Signatures: with --signed, the commits whose signature was checked
	// and the ones that failed.
	Signatures *Signatures `json:"signatures,omitempty"`
	// Verified: every commit is ✓ or allowed (and, with --signed, every
	// signature is good); the exit code is 0 exactly then.
	Verified bool `json:"verified"`
}

// Counts per status.
type Counts struct {
	Landed    int `json:"landed"`
	NotLanded int `json:"not_landed"`
	Mismatch  int `json:"mismatch"`
	Allowed   int `json:"allowed"`
}

// Verify checks main's first-parent commits in o.Range against the landing
// records and the workflow branch, reading git objects only: one git log
// walks main and reads the notes (as git log --notes does) while one git
// cat-file reads the event log.
func Verify(r *repo.Repo, o Options) (*Report, error) {
	g := r.Git
	shallow := shallowCommits(r)
	have, err := refs(g, r.Branch)
	if err != nil {
		return nil, err
	}
	wf, err := workflowRef(g, r.Branch, have)
	if err != nil {
		return nil, err
	}
	rd := gitobj.NewReader(g)
	c, err := readConfig(rd, wf)
	if err != nil {
		return nil, err
	}
	rep := &Report{MainBranch: c.MainBranch, Workflow: wf, Notes: notes.Ref, Commits: []Commit{}}
	// The first file of the log holds init, where the default range
	// starts: it is read first; the listing of the workflow branch and the
	// rest of the log are read while the log walk runs.
	ix := newLogIndex()
	first, err := firstFile(rd, wf)
	if err == nil {
		err = ix.first(rd, wf, first)
	}
	if err != nil {
		return nil, err
	}
	if rep.From, rep.To, err = bounds(g, rd, o.Range, have, c.MainBranch, c.Remote, ix, shallow != nil); err != nil {
		return nil, err
	}
	rng := []string{rep.To}
	if rep.From != "" {
		rng = []string{"^" + rep.From, rep.To}
	}
	readWorkflow := func() (*state, error) {
		st, err := readState(g, wf, first)
		if err == nil {
			err = ix.readLog(g, st.shards)
		}
		return st, err
	}
	var st *state
	if have[notes.Ref] == "" {
		// No notes at all: an error only if the workflow says burl landed
		// something (they were not fetched), else every commit is ✗.
		if st, err = readWorkflow(); err != nil {
			return nil, err
		}
		if len(ix.byMerged) > 0 {
			return nil, errs.New(errs.User, "this clone has no landing records (%s), though the workflow branch %s records %d landing(s) with one",
				notes.Ref, wf, len(ix.byMerged)).
				WithFix("fetch them: git fetch %s %s:%s (git burl sync fetches them with the workflow branch)", c.Remote, notes.Ref, notes.Ref)
		}
	}
	ns := noteSet{}
	var cs []walked
	var walkErr error
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		cs, walkErr = walk(g, rng, notes.Ref, ns)
	}()
	if st == nil {
		st, err = readWorkflow()
	}
	wg.Wait()
	for _, e := range []error{walkErr, err} {
		if e != nil {
			return nil, e
		}
	}
	for _, w := range cs {
		if shallow[w.sha] {
			return nil, errs.New(errs.User, "this clone is shallow: main's history is cut at %s, inside the range %s", gitx.Short(w.sha), describeRange(rep)).
				WithFix("fetch the whole history (git fetch --unshallow; in CI, fetch-depth: 0), or verify a range inside what this clone has: git burl verify A..B")
		}
	}
	v := &verifier{st: st, ix: ix, notes: ns, notesRef: rep.Notes, onMain: make(map[string]*walked, len(cs))}
	for i := range cs {
		v.onMain[cs[i].sha] = &cs[i]
	}
	allowed, err := resolveAll(rd, o.Allow, shallow != nil)
	if err != nil {
		return nil, err
	}
	for _, w := range cs {
		cm := v.judge(w)
		if allowed[w.sha] && cm.Status != Landed {
			cm.Allowed = true
			rep.Counts.Allowed++
		}
		switch cm.Status {
		case Landed:
			rep.Counts.Landed++
		case NotLanded:
			rep.Counts.NotLanded++
		case Mismatch:
			rep.Counts.Mismatch++
		}
		rep.Commits = append(rep.Commits, cm)
	}
	if rep.Counts.NotLanded > 0 {
		if err := v.refine(g, rep.Commits); err != nil {
			return nil, err
		}
	}
	rep.Verified = rep.Counts.Landed+rep.Counts.Allowed == len(rep.Commits)
	if o.Signed {
		tasks := map[string]bool{}
		for _, cm := range rep.Commits {
			if cm.Task != "" {
				tasks[cm.Task] = true
			}
		}
		if rep.Signatures, err = signatures(g, rep.Notes, wf, tasks); err != nil {
			return nil, err
		}
		rep.Verified = rep.Verified && len(rep.Signatures.Bad) == 0
	}
	return rep, nil
}

// shallowCommits are the commits whose parents a shallow clone cut off
// (nil when the clone is whole).
func shallowCommits(r *repo.Repo) map[string]bool {
	data, err := os.ReadFile(filepath.Join(r.CommonDir, "shallow"))
	if err != nil {
		return nil
	}
	m := map[string]bool{}
	for _, l := range strings.Fields(string(data)) {
		m[l] = true
	}
	return m
}

// bounds resolves the range: "A..B", a revision (from init to it), or
// main (local, else the remote's) from init.
func bounds(g gitx.Git, rd *gitobj.Reader, rng string, have map[string]string, main, remote string, ix *logIndex, shallow bool) (from, to string, err error) {
	a, b, isRange := strings.Cut(rng, "..")
	if strings.HasPrefix(b, ".") {
		return "", "", errs.New(errs.User, "git burl verify takes A..B, not A...B: it checks main's first-parent history").
			WithFix("git burl verify %s..%s", a, strings.TrimPrefix(b, "."))
	}
	if !isRange {
		a, b = "", rng
	}
	if b == "" {
		b = "refs/heads/" + main
		if _, kind, _, err := rd.Read(b); err != nil || kind == "missing" {
			b = gitx.Tracking(remote, main)
		}
	}
	if to, err = resolve(rd, b, shallow); err != nil {
		return "", "", err
	}
	if isRange && a != "" {
		from, err = resolve(rd, a, shallow)
		return from, to, err
	}
	if isRange {
		// "..B" is git's HEAD..B.
		from, err = resolve(rd, "HEAD", shallow)
		return from, to, err
	}
	switch {
	case ix.initMain != "":
		from = ix.initMain
		if _, kind, _, err := rd.Read(from + "^{commit}"); err != nil || kind == "missing" {
			return "", "", bad(from+" (main when git burl init ran)", shallow)
		}
	case !ix.initAt.IsZero():
		// Initialised before init recorded main: the range starts at main
		// as it was then, by commit date.
		from, _ = g.Run("log", "-1", "--first-parent", "--format=%H", "--before="+ix.initAt.Format("2006-01-02T15:04:05Z"), to, "--")
	}
	return from, to, nil
}

// resolve is a revision's commit, read by rd (cat-file takes git's
// revision syntax).
func resolve(rd *gitobj.Reader, rev string, shallow bool) (string, error) {
	if rev == "" || strings.ContainsAny(rev, "\n\r") || strings.HasPrefix(rev, "-") {
		return "", bad(rev, shallow)
	}
	oid, kind, _, err := rd.Read(rev + "^{commit}")
	if err != nil {
		return "", err
	}
	if kind != "commit" {
		return "", bad(rev, shallow)
	}
	return oid, nil
}

func resolveAll(rd *gitobj.Reader, revs []string, shallow bool) (map[string]bool, error) {
	m := map[string]bool{}
	for _, rev := range revs {
		c, err := resolve(rd, rev, shallow)
		if err != nil {
			return nil, errs.Wrap(err, errs.User, "--allow "+rev)
		}
		m[c] = true
	}
	return m, nil
}

func describeRange(rep *Report) string {
	if rep.From == "" {
		return "…" + gitx.Short(rep.To)
	}
	return gitx.Short(rep.From) + ".." + gitx.Short(rep.To)
}

// parsed is one note, read and judged once for every commit carrying it
// (the commits of one landing share it): what verify shows of it, and
// the verdict that does not depend on the commit.
type parsed struct {
	hash string
	err  error
	sum  *summary
	// verdict: why the record does not match the workflow ("" when it
	// does); judged tells it was worked out.
	verdict string
	judged  bool
}

// summary is what verify keeps of a record: what it checks and shows.
type summary struct {
	task, title, kind, approvedBy, landedAt, agent, model, tree string
	commits, gates                                              []string
}

func summarize(r *Record) *summary {
	s := &summary{task: r.Task, title: r.Title, kind: r.Landing.Kind, approvedBy: r.ApprovedBy, landedAt: r.LandedAt, tree: r.Tree, commits: r.Commits,
		gates: make([]string, 0, len(gateNames))}
	if r.Agent != nil {
		s.agent, s.model = r.Agent.Name, r.Agent.Model
	}
	for _, g := range []struct {
		name string
		gate *Gate
	}{{gateNames[0], &r.Gates.Scope}, {gateNames[1], &r.Gates.Stubs}, {gateNames[2], &r.Gates.Build}, {gateNames[3], &r.Gates.Verify}, {gateNames[4], r.Gates.Review}, {gateNames[5], r.Gates.Checks}} {
		if g.gate != nil && g.gate.Result == Pass {
			s.gates = append(s.gates, g.name)
		}
	}
	return s
}

// verifier judges commits against what Verify read.
type verifier struct {
	st       *state
	ix       *logIndex
	notes    noteSet
	notesRef string
	onMain   map[string]*walked
}

// refine names more exactly what the commits burl did not land look like,
// from the log's submit events.
func (v *verifier) refine(g gitx.Git, cs []Commit) error {
	submitted, err := submittedIn(g, append([]string{v.st.first}, v.st.shards...))
	if err != nil {
		return err
	}
	for i := range cs {
		if cs[i].Status == NotLanded {
			cs[i].LooksLike, cs[i].Reason = describe(*v.onMain[cs[i].Commit], submitted, v.ix.cancelled)
		}
	}
	return nil
}

// judge is the verdict on one commit of main.
func (v *verifier) judge(w walked) Commit {
	cm := Commit{Commit: w.sha, Subject: w.subject}
	if !w.note {
		if l, ok := v.ix.byMerged[w.sha]; ok {
			cm.Status, cm.Task = Mismatch, l.task
			cm.Reason = fmt.Sprintf("the workflow recorded %s landing as this commit (record sha256 %s…), but %s has no note on it: the notes were rewritten, or not fetched whole",
				l.task, l.hash[:12], v.notesRef)
			return cm
		}
		cm.Status = NotLanded
		cm.LooksLike, cm.Reason = describe(w, nil, v.ix.cancelled)
		return cm
	}
	p := v.notes[w.hash]
	cm.Status = Mismatch
	if p.err != nil {
		cm.Reason = p.err.Error()
		return cm
	}
	s := p.sum
	cm.Task, cm.Title, cm.Landing, cm.ApprovedBy, cm.LandedAt = s.task, s.title, s.kind, s.approvedBy, s.landedAt
	cm.Agent, cm.Model, cm.Gates = s.agent, s.model, s.gates
	if cm.Reason = v.onCommit(w, s); cm.Reason == "" {
		if !p.judged {
			p.verdict, p.judged = v.verdict(s, p.hash), true
		}
		cm.Reason = p.verdict
	}
	if cm.Reason == "" {
		cm.Status = Landed
	}
	return cm
}

// onCommit says why a record does not match the commit it is on ("" when
// it does): it names the commit, and the last of its commits has its tree.
func (v *verifier) onCommit(w walked, s *summary) string {
	last := s.commits[len(s.commits)-1]
	in := false
	for _, c := range s.commits {
		in = in || c == w.sha
	}
	switch {
	case !in:
		return fmt.Sprintf("the note is the record of other commits (%s): it does not name this one", gitx.Short(last))
	case w.sha == last && w.tree != s.tree:
		return fmt.Sprintf("the commit's tree %s is not the tree %s landed (%s): the commit was changed after the gates passed", gitx.Short(w.tree), s.task, gitx.Short(s.tree))
	}
	if tip, ok := v.onMain[last]; ok && tip.tree != s.tree {
		return fmt.Sprintf("%s's last commit %s does not hold the tree the record names", s.task, gitx.Short(last))
	}
	return ""
}

// verdict says why a record does not match the workflow branch ("" when
// it does): its task is there, DONE and not cancelled, and one of its
// landings recorded this very note.
func (v *verifier) verdict(s *summary, hash string) string {
	bucket, ok := v.st.buckets[s.task]
	switch {
	case !ok:
		return fmt.Sprintf("the record names %s, which the workflow branch does not have", s.task)
	case bucket != "DONE":
		return fmt.Sprintf("the record names %s, which is in %s, not DONE", s.task, bucket)
	case v.ix.cancelled[s.task]:
		return fmt.Sprintf("%s was cancelled (resolution: cancelled): it did not land", s.task)
	}
	ls := v.ix.landings[s.task]
	for _, l := range ls {
		if l.hash == hash {
			return ""
		}
	}
	if len(ls) == 0 {
		return fmt.Sprintf("no landing of %s on the workflow branch recorded this note (its events hold no record_sha256 for %s)", s.task, s.task)
	}
	return fmt.Sprintf("the note was altered: its sha256 %s… is not the one recorded when %s landed (%s…)", hash[:12], s.task, ls[len(ls)-1].hash[:12])
}
