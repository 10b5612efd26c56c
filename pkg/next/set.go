package next

import (
	"bytes"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/burl-dev/burl/pkg/agents"
	"github.com/burl-dev/burl/pkg/gate"
	"github.com/burl-dev/burl/pkg/gitx"
	"github.com/burl-dev/burl/pkg/lease"
	"github.com/burl-dev/burl/pkg/lock"
	"github.com/burl-dev/burl/pkg/review"
	"github.com/burl-dev/burl/pkg/task"
	"github.com/burl-dev/burl/pkg/workflow"
)

// Refs are, from one git call, the last commit time of every local task
// branch and the tips of the task branches, of main and its
// remote-tracking ref, and of the workflow branch (Local) and its
// remote-tracking ref (Remote); "" when missing.
type Refs struct {
	Activity      map[string]time.Time
	Tips          map[string]string
	Local, Remote string
}

// ReadRefs reads Refs with one for-each-ref.
func ReadRefs(w *workflow.Workflow) Refs {
	r := Refs{Activity: map[string]time.Time{}, Tips: map[string]string{}}
	localRef := "refs/heads/" + w.Repo.Branch
	remoteRef := gitx.Tracking(w.Config.Remote, w.Repo.Branch)
	res, err := w.Repo.Git.Run("for-each-ref", "--format=%(refname) %(objectname) %(committerdate:unix)",
		"refs/heads/task-*", "refs/heads/"+w.Config.MainBranch, gitx.Tracking(w.Config.Remote, w.Config.MainBranch), localRef, remoteRef)
	if err != nil {
		return r
	}
	for _, l := range strings.Split(res, "\n") {
		f := strings.Fields(l)
		if len(f) != 3 {
			continue
		}
		switch f[0] {
		case localRef:
			r.Local = f[1]
		case remoteRef:
			r.Remote = f[1]
		default:
			name := strings.TrimPrefix(f[0], "refs/heads/")
			if n, err := strconv.ParseInt(f[2], 10, 64); err == nil {
				r.Activity[name] = time.Unix(n, 0)
			}
			r.Tips[name] = f[1]
		}
	}
	return r
}

// Inputs are what a Set is gathered from; a nil field is read by Gather.
type Inputs struct {
	// Tasks are the summaries read: every task that is not DONE must be
	// among them (the DOING ones decide max_parallel and overlaps); DONE
	// and malformed ones are passed over.
	Tasks []workflow.Summary
	// Done says which dependencies of the open tasks are DONE.
	Done  map[string]bool
	Locks []lock.Status
	// Refs are read (one for-each-ref) the first time a DOING task's
	// facts need them: only its activity and tip are read from them, and
	// submit's and approve's next step is of a task in QA or DONE.
	Refs *Refs
	// Duplicates are the IDs with more than one file, with those files.
	Duplicates map[string][]string
	// BuildUntrusted: validate and approve would refuse every QA task.
	BuildUntrusted bool
	Now            time.Time
}

// Set decides the next step of many tasks from one reading of the
// workflow: what is true of all of them is worked out once, what is true
// of one task when it is asked about.
type Set struct {
	in      Inputs
	locked  map[string]lock.Status
	blocked map[string]int // BLOCKED task → its index in in.Tasks
	cap     string
	doing   []workflow.Summary
	scopes  *gate.Index
	stale   time.Duration
	grace   time.Duration
	host    string
	// reviewer is agents.yaml's review: agent ("" without one): a QA
	// task lands only on its approve of the submitted head.
	reviewer string
	// open maps each open task to its bucket, made the first time a QA
	// task with dependencies needs it (stackedWait).
	open map[string]workflow.Bucket
	// readRefs reads in.Refs when they were not given, the first time
	// refs() is asked (DESIGN §28: a git process only when needed).
	readRefs func() *Refs
}

// refs are in.Refs, read now if they were not given.
func (s *Set) refs() *Refs {
	if s.in.Refs == nil {
		s.in.Refs = s.readRefs()
	}
	return s.in.Refs
}

// stackedWait is the dependency a QA task waits for before it can land:
// one still open, which only a task stacked on it (DESIGN §26) has.
func (s *Set) stackedWait(e *workflow.Summary) []string {
	if len(e.DependsOn) == 0 {
		return nil
	}
	if s.open == nil {
		s.open = map[string]workflow.Bucket{}
		for i := range s.in.Tasks {
			if t := &s.in.Tasks[i]; t.Err == nil && t.Bucket != workflow.Done {
				s.open[t.ID] = t.Bucket
			}
		}
	}
	var out []string
	for _, d := range e.DependsOn {
		if _, ok := s.open[d]; ok {
			out = append(out, d)
		}
	}
	return out
}

// Gather reads what in leaves out and prepares the decisions.
func Gather(w *workflow.Workflow, in Inputs) (*Set, error) {
	if in.Now.IsZero() {
		in.Now = time.Now()
	}
	if in.Done == nil {
		var deps []string
		for i := range in.Tasks {
			if e := &in.Tasks[i]; e.Err == nil && (e.Bucket == workflow.Ready || e.Bucket == workflow.Blocked) {
				deps = append(deps, e.DependsOn...)
			}
		}
		done, err := w.DoneAmong(deps)
		if err != nil {
			return nil, err
		}
		in.Done = done
	}
	if in.Locks == nil {
		ls, err := w.Locks.List()
		if err != nil {
			return nil, err
		}
		in.Locks = ls
	}
	s := &Set{in: in, locked: map[string]lock.Status{}, blocked: map[string]int{},
		stale: time.Duration(w.Config.LockStaleMinutes) * time.Minute, grace: w.Config.LeaseGrace, host: w.Host}
	if in.Refs == nil {
		s.readRefs = func() *Refs {
			r := ReadRefs(w)
			return &r
		}
	}
	for _, l := range in.Locks {
		if !l.Dead {
			// A dead holder's lock is taken over by the next verb.
			s.locked[l.Name] = l
		}
	}
	unreviewed := false
	for i := range in.Tasks {
		e := &in.Tasks[i]
		if e.Err != nil {
			continue
		}
		switch e.Bucket {
		case workflow.Doing:
			s.doing = append(s.doing, *e)
		case workflow.Blocked:
			s.blocked[e.ID] = i
		case workflow.QA:
			unreviewed = unreviewed || !e.Reviewed
		}
	}
	if unreviewed {
		// agents.yaml is read only when a QA task may wait for a review,
		// and its committed copy (a git process) only when the file names
		// a review at all: agents poll status. One that does not parse is
		// the verbs' to report.
		if data, err := os.ReadFile(filepath.Join(w.Dir, agents.FileName)); err == nil && bytes.Contains(data, []byte("review")) {
			if r, err := review.Settings(w); err == nil && r != nil {
				s.reviewer = r.Agent
			}
		}
	}
	if max := w.Config.MaxParallel; max > 0 && len(s.doing) >= max {
		s.cap = workflow.CapReason(max, len(s.doing))
	}
	if w.Config.ConflictPolicy == "fail" && len(s.doing) > 0 {
		ss := make([]gate.Scope, len(s.doing))
		for i, d := range s.doing {
			ss[i] = ScopeOf(d)
		}
		s.scopes = gate.NewIndex(ss)
	}
	return s, nil
}

// ScopeOf is a summary's declared scope.
func ScopeOf(s workflow.Summary) gate.Scope {
	return gate.Scope{Affects: s.Affects, AffectsGlobs: s.AffectsGlobs, MustNotTouch: s.MustNotTouch}
}

// Done reports whether a dependency is DONE, as the Set knows it.
func (s *Set) Done(id string) bool { return s.in.Done[id] }

// Lock is the live lock held on a task, if any.
func (s *Set) Lock(id string) (lock.Status, bool) {
	l, ok := s.locked[id]
	return l, ok
}

// For is e's next step.
func (s *Set) For(e *workflow.Summary) Step { return For(s.Facts(e)) }

// Facts are what the Set knows of e.
func (s *Set) Facts(e *workflow.Summary) Facts { return s.facts(e, true) }

// facts gathers e's facts; withDeps also the next step of each BLOCKED
// dependency (one level: a dependency's own dependencies are its show's).
func (s *Set) facts(e *workflow.Summary, withDeps bool) Facts {
	f := Facts{ID: e.ID, Bucket: e.Bucket, Duplicate: s.in.Duplicates[e.ID], ScopeRequest: e.ScopeRequest, Held: e.Held,
		Cancelled: e.Resolution == task.ResolutionCancelled}
	switch e.Bucket {
	case workflow.Ready, workflow.Blocked:
		for _, d := range e.DependsOn {
			if s.in.Done[d] {
				continue
			}
			f.Unmet = append(f.Unmet, d)
			if i, ok := s.blocked[d]; ok {
				dep := &s.in.Tasks[i]
				bd := Dep{ID: d, Reason: dep.BlockedReason}
				if withDeps {
					bd.Step = For(s.facts(dep, false))
				}
				f.Blocked = append(f.Blocked, bd)
			}
		}
		f.OverBudget = e.OverBudget
	case workflow.Doing:
		f.Holder = lease.Check(lease.Fields{Holder: e.LeaseHolder, Expires: e.LeaseExpires, StartedAt: e.StartedAt}, s.in.Now, s.grace, s.host)
		// No commit on the task branch (and no claim) for longer than
		// lock_stale_minutes: likely a dead worker.
		last := s.refs().Activity[e.Branch]
		if st, err := time.Parse(time.RFC3339, e.StartedAt); err == nil && st.After(last) {
			last = st
		}
		if idle := s.in.Now.Sub(last); !last.IsZero() && idle > s.stale {
			f.Stalled = idle
		}
		// submit refuses a branch without commits of its own.
		if tip := s.refs().Tips[e.Branch]; tip != "" && tip == e.BaseSHA {
			f.NoCommit = e.Branch
		}
	case workflow.QA:
		f.PR, f.PRURL, f.GateFailed, f.BuildUntrusted = e.PRNumber, e.PRURL, e.GateFailed, s.in.BuildUntrusted
		f.Unmet = s.stackedWait(e)
		if !e.Reviewed {
			f.Reviewer = s.reviewer
		}
	}
	if e.Bucket == workflow.Ready {
		if s.scopes != nil {
			if i, o := s.scopes.First(ScopeOf(*e)); i >= 0 && s.doing[i].ID != e.ID {
				f.Overlap = workflow.OverlapReason(s.doing[i].ID, o)
			}
		}
		f.Cap = s.cap
		if l, ok := s.locked[e.ID]; ok {
			f.Lock = l.Describe()
		}
	}
	return f
}
