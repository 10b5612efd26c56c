package record

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/burl-dev/burl/pkg/config"
	"github.com/burl-dev/burl/pkg/events"
	"github.com/burl-dev/burl/pkg/gate"
	"github.com/burl-dev/burl/pkg/gitobj"
	"github.com/burl-dev/burl/pkg/gitx"
	"github.com/burl-dev/burl/pkg/notes"
	"github.com/burl-dev/burl/pkg/task"
	"github.com/burl-dev/burl/pkg/workflow"
)

// Landing is what the landing itself knows, beyond the task and the
// workflow: how the work got onto main, and what the gates did there.
type Landing struct {
	Kind      string
	Recovered bool
	// Merged is the commit on main's first-parent history that holds the
	// work (the event's merged_sha); Base is main before it. The landed
	// commits are main's first-parent commits in Base..Merged, or the
	// Count last of them (a merge commit or a squash: 1).
	Merged, Base string
	Count        int
	// Gates as they ran for this landing (Land fills the inputs' hashes).
	Gates Gates
	// Checks is what a pull request's merge says of the forge's checks
	// (checks: required or all), beside the gates approve ran.
	Checks *Gate
	// Gated is the commit the gates passed when it is not Merged (the
	// head of a pull request the forge merged its own way).
	Gated      string
	MergeStyle string
	How        string
	PR         *PR
	// ApprovedBy is who approved, when not the transition's actor (a pull
	// request: who ran the approve that opened it).
	ApprovedBy string
}

// KeyRecord is the landing event's detail holding the record's sha256.
const KeyRecord = "record_sha256"

// KeyGates is the detail of pr_open holding the gates approve ran, which
// the landing's record carries once the forge merges.
const KeyGates = "gates"

// Land writes the landing record of tx's task as a note on each landed
// commit, in one notes commit, and puts its sha256 in the landing's event
// (record_sha256). Landing transitions call it from Apply, once main
// holds the work. The notes commit is written by the transition's own
// commit, its objects and the notes ref's move in the same git processes
// as DONE's (DESIGN §28), journalled until then (workflow's carry): a kill
// after the event reached the disk leaves the record for the next commit,
// doctor's of that event first, so no committed event names a record that
// is not there. A transition rolled back takes the note back; with
// workflow_auto_push the notes go in the push of DONE.
func Land(w *workflow.Workflow, tx *workflow.Tx, l Landing) error {
	u, c, hash, err := prepare(w, tx.Task, tx.Now, l)
	if err == nil {
		err = tx.CarryNotes(c, u)
	}
	if err != nil {
		return fmt.Errorf("writing the landing record of %s to %s: %w", tx.Task.ID(), notes.Ref, err)
	}
	tx.OnRollback(func() error { return notes.Restore(w.Repo.Git, u.Tip, u.Was) })
	tx.Details[KeyRecord] = hash
	return nil
}

// Repaired is Land for a landing recorded outside a transition (doctor's
// repair of an interrupted approve): the notes ref moves at once, and the
// caller puts the sha256 it returns in its event.
func Repaired(w *workflow.Workflow, t *task.Task, now time.Time, l Landing) (string, error) {
	u, _, hash, err := prepare(w, t, now, l)
	if err != nil {
		return "", err
	}
	return hash, u.Apply(w.Repo.Git)
}

// prepare builds t's landing record and the notes commit that puts it on
// each landed commit, read with one git cat-file (the landed commits and
// the notes tree); it returns the notes commit, the change it makes and
// the record's sha256.
func prepare(w *workflow.Workflow, t *task.Task, now time.Time, l Landing) (u *notes.Update, c notes.Change, hash string, err error) {
	rd := gitobj.NewReader(w.Repo.Git)
	r := build(w, t, now, l)
	if r.Commits, r.Tree, err = landed(rd, l); err != nil {
		return nil, c, "", fmt.Errorf("reading the landed commits of %s: %w", r.Task, err)
	}
	for _, g := range []*Gate{&r.Gates.Build, r.Gates.Checks} {
		if g != nil && g.On == r.Commits[len(r.Commits)-1] {
			g.On = ""
		}
	}
	if l.Gated != "" && l.Gated != l.Merged {
		oid, kind, _, err := rd.Read(l.Gated + "^{tree}")
		if err != nil || kind != "tree" {
			return nil, c, "", fmt.Errorf("reading the tree the gates passed (%s): %v", gitx.Short(l.Gated), err)
		}
		if oid != r.Tree {
			r.GatedTree = oid
		}
	}
	note, err := r.Encode()
	if err != nil {
		return nil, c, "", err
	}
	blob := gitobj.New("blob", note, len(r.Commits[0])/2)
	m := notes.Map{}
	for _, cm := range r.Commits {
		m[cm] = blob.OID
	}
	c = notes.Change{Notes: m, Blobs: []gitobj.Object{blob},
		Message: fmt.Sprintf("burl: landing record of %s (%d commit(s))", r.Task, len(r.Commits))}
	if u, err = notes.Plan(w.Repo, rd, c); err != nil {
		return nil, c, "", err
	}
	return u, c, notes.Hash(note), nil
}

// maxLanded bounds the walk down main's first parents to a landing's
// base: a landing of more commits than this is not one approve made.
const maxLanded = 10000

// landed lists the commits l landed, oldest first, and the last one's
// tree, reading the commit objects down main's first parents from Merged:
// to Base, or Count of them (one when neither is given).
func landed(rd *gitobj.Reader, l Landing) ([]string, string, error) {
	var cs []string
	tree := ""
	for c := l.Merged; ; {
		oid, kind, body, err := rd.Read(c + "^{commit}")
		if err != nil {
			return nil, "", err
		}
		if kind != "commit" {
			return nil, "", fmt.Errorf("%s is not a commit", gitx.Short(c))
		}
		hdr, _, _ := strings.Cut(string(body), "\n\n")
		parent := ""
		for _, line := range strings.Split(hdr, "\n") {
			if t, ok := strings.CutPrefix(line, "tree "); ok && tree == "" {
				tree = t
			} else if p, ok := strings.CutPrefix(line, "parent "); ok && parent == "" {
				parent = p
			}
		}
		cs = append(cs, oid)
		switch {
		case parent == "" || parent == l.Base || l.Base == "" && len(cs) >= max(l.Count, 1) || l.Count > 0 && len(cs) >= l.Count:
			slices.Reverse(cs)
			return cs, tree, nil
		case len(cs) >= maxLanded:
			return nil, "", fmt.Errorf("%s is not on the first-parent line of %s", gitx.Short(l.Base), gitx.Short(l.Merged))
		}
		c = parent
	}
}

// build is the record of t's landing at now, without its commits.
func build(w *workflow.Workflow, t *task.Task, now time.Time, l Landing) *Record {
	r := &Record{
		Version: Version, Task: t.ID(), Title: t.Title(), MainBranch: w.Config.MainBranch, Base: l.Base,
		Landing:   Via{Kind: l.Kind, Recovered: l.Recovered, MergeStyle: l.MergeStyle, How: l.How, PR: l.PR},
		Submitted: t.Str(task.KeySubmittedSHA), Gates: l.Gates, Worker: t.Str(task.KeyAssignedTo),
		Attempts: Attempts{QA: t.Int(task.KeyQAAttempts)}, ApprovedBy: l.ApprovedBy, LandedAt: stamp(now),
	}
	if r.ApprovedBy == "" {
		r.ApprovedBy = w.Actor
	}
	if sum := t.Usage().Total(); sum.Runs > 0 {
		r.Cost = &Cost{InputTokens: sum.InputTokens, OutputTokens: sum.OutputTokens, CostUSD: sum.CostUSD}
	}
	since, err := time.Parse(time.RFC3339, t.Str(task.KeyCreated))
	if err != nil {
		since = now.AddDate(0, 0, -1)
	}
	// The log may not have the day's shard yet (the transition writes it):
	// what the task did before is all there.
	evs, _ := events.ForTask(w.EventsDir(), t.ID(), since)
	for _, e := range evs {
		switch e.Action {
		case "run_start":
			r.Attempts.Runs++
			r.Agent = &Agent{Name: str(e.Details["agent"]), Preset: str(e.Details["preset"])}
		case "run_end":
			if u, ok := e.Details["usage"].(map[string]any); ok && r.Agent != nil && str(e.Details["agent"]) == r.Agent.Name {
				r.Agent.Model = str(u["model"])
			}
		case "pr_open":
			if l.Kind != KindPR {
				continue
			}
			if r.ApprovedBy == w.Actor {
				r.ApprovedBy = e.Actor
			}
			if raw, err := json.Marshal(e.Details[KeyGates]); err == nil {
				var gs Gates
				if json.Unmarshal(raw, &gs) == nil && gs.Scope.Result != "" {
					r.Gates = gs
				}
			}
		}
	}
	if r.Gates.Scope.Result == "" {
		// A landing that ran no gate of its own (a pull request opened by
		// a burl that did not record them): what approve's pass means.
		r.Gates = Gates{Scope: Gate{Result: Pass}, Stubs: Gate{Result: Pass}, Build: Gate{Result: Pass}, Verify: Gate{Result: Pass}}
	}
	if l.Checks != nil {
		r.Gates.Checks = l.Checks
	}
	hashInputs(&r.Gates, t, w.Config)
	return r
}

func str(v any) string {
	s, _ := v.(string)
	return s
}

// GatesOf are the gate results of an approve of t whose scope and stub
// gates passed on its range and whose build and verify ran as runs say,
// with the hashes of their inputs; buildOn is the commit the build ran on
// when it is not the landed tip. A gate with nothing to run is "none".
func GatesOf(c *config.Config, t *task.Task, runs []gate.RunResult, buildOn string) Gates {
	gs := Gates{Scope: Gate{Result: Pass}, Stubs: Gate{Result: Pass}, Build: Gate{Result: None}, Verify: Gate{Result: None}}
	for _, run := range runs {
		gt := &gs.Build
		switch run.Name {
		case "verify":
			gt = &gs.Verify
		case "checks":
			// The forge's checks on the batch candidate (queue_ci: forge).
			gs.Checks = &Gate{}
			gt = gs.Checks
		}
		exit := run.ExitCode
		*gt = Gate{Result: Pass, Command: run.Command, Exit: &exit, Seconds: run.Seconds}
		switch run.Name {
		case "build":
			gt.On = buildOn
		case "checks":
			gt.On, gt.Summary = buildOn, strings.TrimPrefix(strings.Join(run.Tail, "; "), "passed: ")
		}
	}
	hashInputs(&gs, t, c)
	return gs
}

// RecoveredGates are the gates of an approve interrupted after it moved
// main, finished later: it passed them all before it moved main (their
// output was not kept).
func RecoveredGates(c *config.Config, t *task.Task) Gates {
	var runs []gate.RunResult
	for _, r := range []gate.RunResult{{Name: "build", Command: c.BuildCommand}, {Name: "verify", Command: t.Str(task.KeyVerify)}} {
		if r.Command != "" {
			runs = append(runs, r)
		}
	}
	return GatesOf(c, t, runs, "")
}

// hashInputs fills each gate's InputsSHA256 that is not filled yet from
// the task and config the gates read (committed state, DESIGN §15).
func hashInputs(gs *Gates, t *task.Task, c *config.Config) {
	for _, h := range []struct {
		gate   *Gate
		inputs map[string]any
	}{
		{&gs.Scope, map[string]any{task.KeyAffects: list(t.List(task.KeyAffects)), task.KeyAffectsGlobs: list(t.List(task.KeyAffectsGlobs)),
			task.KeyMustNotTouch: list(t.List(task.KeyMustNotTouch))}},
		{&gs.Stubs, map[string]any{"stub_patterns": list(c.StubPatterns), "stub_check_extensions": list(c.StubCheckExtensions)}},
		{&gs.Build, map[string]any{"build_command": c.BuildCommand, "build_timeout": c.BuildTimeout.String()}},
		{&gs.Verify, map[string]any{task.KeyVerify: t.Str(task.KeyVerify)}},
		{gs.Checks, map[string]any{"checks": c.CI.Checks, "ci_timeout": c.CI.Timeout.String()}},
	} {
		if h.gate != nil && h.gate.InputsSHA256 == "" {
			h.gate.InputsSHA256 = InputsHash(h.inputs)
		}
	}
}

// list is a list as JSON has it: empty, not null.
func list(l []string) []string {
	if l == nil {
		return []string{}
	}
	return l
}
