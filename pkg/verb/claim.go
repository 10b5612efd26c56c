package verb

import (
	"errors"
	"fmt"
	"io"
	"math/rand"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/burl-dev/burl/pkg/cli"
	"github.com/burl-dev/burl/pkg/conflict"
	"github.com/burl-dev/burl/pkg/errs"
	"github.com/burl-dev/burl/pkg/faults"
	"github.com/burl-dev/burl/pkg/gitx"
	"github.com/burl-dev/burl/pkg/hook"
	"github.com/burl-dev/burl/pkg/integrate"
	"github.com/burl-dev/burl/pkg/sandbox"
	"github.com/burl-dev/burl/pkg/stack"
	"github.com/burl-dev/burl/pkg/task"
	"github.com/burl-dev/burl/pkg/watch"
	"github.com/burl-dev/burl/pkg/workflow"
	"github.com/burl-dev/burl/pkg/workspace"
)

// Claim is `git burl claim`: what cmd/git-burl-claim runs. Only the
// verbs a binary names are linked into it.
func Claim() cli.Command { return &claimCmd{} }

// ClaimAsAgent is claim as an agent's tool offers it (the MCP server's
// claim): a held task is refused to it whatever it passes.
func ClaimAsAgent() cli.Command { return &claimCmd{agent: true} }

type claimCmd struct {
	cli.JSONFlag
	agent bool
	Force bool `long:"force" description:"Claim a held task (a human only, outside any watch run: agents and watch are always refused it)"`
}

type claimOut struct {
	Task       map[string]any `json:"task"`
	Worktree   string         `json:"worktree"`
	Reused     bool           `json:"reused"`
	Rejections []string       `json:"rejections"`
	// MainMoved counts the commits main gained since the task's base_sha
	// (Liza's staleness check); 0 for a fresh branch.
	MainMoved int `json:"main_moved"`
	// Conflicts are where a reused branch's work is predicted to conflict
	// with main or with another task in flight (DESIGN §11).
	Conflicts []conflict.Pair `json:"conflicts,omitempty"`
	entry     workflow.Entry
}

func (o claimOut) Human(w io.Writer) {
	t := o.entry.Task
	how := "new branch"
	if o.Reused {
		how = "reusing branch"
	}
	fmt.Fprintf(w, "Claimed %s %q (%s %s, base %s)\n", o.entry.ID, t.Title(), how, t.Branch(), gitx.Short(t.BaseSHA()))
	fmt.Fprintln(w, o.Worktree)
}

func (c *claimCmd) Run(ctx *cli.Context, args []string) (cli.Output, error) {
	if len(args) > 1 {
		return nil, usageErr("claim", "takes at most one task ID")
	}
	w, err := open(ctx)
	if err != nil {
		return nil, err
	}
	// Before work starts on a task branch, shims left by an older burl are
	// brought up to date, so its commits are checked by this burl's hooks.
	for _, a := range hook.Refresh(w.Repo.HooksDir()) {
		ctx.Warnf("updated burl's %s hook to this version (%s)", a.Name, a.Path)
	}
	if len(args) == 1 {
		id, err := task.NormalizeID(args[0])
		if err != nil {
			return nil, err
		}
		if e, err := w.Get(id); err == nil && e.Bucket == workflow.Doing {
			return nil, heldBy(w, e)
		}
		return claim(ctx, w, id, claimHow{explicit: true, force: c.Force && !c.agent && !w.Repo.InWatchRun()})
	}
	if c.Force {
		return nil, usageErr("claim", "--force takes a held task named by its ID")
	}
	return claimNext(ctx, w)
}

// claimNext picks the next claimable task under the claim lock, so two
// auto-claimers never pick the same one, and claims it.
func claimNext(ctx *cli.Context, w *workflow.Workflow) (cli.Output, error) {
	// The claim lock serialises choosing, not claiming: it is released as
	// soon as the chosen task's own lock is held, so the next claimer skips
	// that task instead of queueing behind a slow worktree checkout.
	var unlock func()
	if w.Config.UseGlobalClaimLock {
		l, err := w.LockClaim()
		if err != nil {
			return nil, errs.Wrap(err, errs.Lock, "Cannot claim the next task")
		}
		// Once only: after our release the file may be someone else's lock.
		var once sync.Once
		unlock = func() { once.Do(func() { _ = l.Release() }) }
		defer unlock()
	}
	ready, _, err := w.InBucket(workflow.Ready)
	if err != nil {
		return nil, err
	}
	doing, _, err := w.InBucket(workflow.Doing)
	if err != nil {
		return nil, err
	}
	done, err := w.DoneSet(tasks(ready)...)
	if err != nil {
		return nil, err
	}
	cands, skipped, warnings := workflow.Candidates(tasks(ready), tasks(doing), stack.Unmet(w, done), w.Config.ConflictPolicy, overlap)
	// With max_parallel reached every candidate waits for a slot: said per
	// task, with the tasks that wait for something else.
	if full, err := capFull(w); err != nil {
		return nil, err
	} else if full != "" {
		for _, t := range cands {
			skipped = append(skipped, workflow.Skip{ID: t.ID(), Reason: full})
		}
		cands = nil
	}
	path := make(map[string]string, len(ready))
	for _, e := range ready {
		path[e.ID] = e.Path
	}
	var lost []string
	for i := 0; i < len(cands); i++ {
		t := cands[i]
		if w.Locks.Held(t.ID()) {
			lost = append(lost, t.ID()+" (locked)")
			continue
		}
		// Claimed since we listed READY: do not take its lock even for a
		// moment, its owner may be submitting it already.
		if _, err := os.Stat(path[t.ID()]); err != nil {
			lost = append(lost, t.ID()+" (claimed meanwhile)")
			continue
		}
		if err := underCap(w); err != nil {
			return nil, err
		}
		if why, ok := warnings[t.ID()]; ok {
			ctx.Warnf("%s: %s (conflict_policy: warn)", t.ID(), why)
		}
		out, err := claim(ctx, w, t.ID(), claimHow{locked: unlock})
		if err == nil {
			return out, nil
		}
		var rc *conflictRefusal
		if errors.As(err, &rc) {
			skipped = append(skipped, workflow.Skip{ID: t.ID(), Reason: rc.why})
			continue
		}
		// Another process got this one between our read and our lock, or
		// even finished claiming it before we looked at the lock: take the
		// next, as a human would.
		if errs.KindOf(err) == errs.Lock {
			lost = append(lost, t.ID()+" (locked)")
			spread(cands[i+1:])
			continue
		}
		// Two files for one ID is no race: no other process will ever
		// settle it, so say so (exit 1) rather than send a loop retrying.
		var dup *workflow.DuplicateError
		if errors.As(err, &dup) {
			return nil, err
		}
		if !stillReady(w, t.ID()) {
			lost = append(lost, t.ID()+" (claimed meanwhile)")
			spread(cands[i+1:])
			continue
		}
		return nil, err
	}
	if len(lost) > 0 {
		return nil, errs.New(errs.Lock, "every claimable task is being claimed by another process: %s", strings.Join(lost, ", ")).
			WithTitle("Cannot claim the next task").WithFix("run git burl claim again in a moment")
	}
	// Exit 1 says there is no work; exit 4 says there is, later: an agent
	// loop stops on the first and waits on the second.
	if len(ready) == 0 {
		return nil, errs.New(errs.User, "no task in READY (0 READY)").WithTitle("Nothing to claim").
			WithFix("git burl add creates work")
	}
	reason := fmt.Sprintf("none of the %d READY tasks can be claimed now:", len(ready))
	// A task that waits on a BLOCKED one waits for a human: said with the
	// BLOCKED task and what moves it, once per BLOCKED task.
	said := map[string]bool{}
	var human []*workflow.Entry
	waitsForWork := false
	for _, s := range skipped {
		line := s.Reason
		var unmet []string
		var blocked []*workflow.Entry
		if t := byID(ready, s.ID); t != nil && strings.HasPrefix(line, "waits for ") {
			unmet = workflow.UnmetDeps(t, done)
			blocked = blockedBehind(w, unmet)
		}
		if len(blocked) == 0 {
			waitsForWork = true
		}
		var fresh []*workflow.Entry
		for _, b := range blocked {
			if !said[b.ID] {
				said[b.ID] = true
				fresh = append(fresh, b)
			}
		}
		human = append(human, fresh...)
		switch {
		case len(fresh) > 0:
			line += "; " + blockedSaid(w, unmet, fresh)
		case len(blocked) > 0:
			line += fmt.Sprintf("; it waits for the BLOCKED %s (above)", strings.Join(blockedIDs(blocked), ", "))
		}
		reason += fmt.Sprintf("\n  %s: %s", s.ID, line)
	}
	fix := "wait until what they wait for is done (git burl status), then run git burl claim again"
	if len(human) > 0 {
		moves := "a human settles " + strings.Join(blockedIDs(human), ", ") + " (git burl show " + human[0].ID + " says why): " + unblocking(w, human[0])
		if waitsForWork {
			fix = moves + "; for the others " + fix
		} else {
			fix = moves + "; nothing else moves them"
		}
	}
	return nil, errs.New(errs.Lock, "%s", reason).WithTitle("Nothing to claim now").WithFix("%s", fix)
}

// byID is the task of entries with that ID, nil if none.
func byID(entries []workflow.Entry, id string) *task.Task {
	for _, e := range entries {
		if e.ID == id {
			return e.Task
		}
	}
	return nil
}

// spread rotates the candidates left after a claim lost its task to
// another process by a random offset. Clones of one origin read READY in
// the same order: after one wins a task the losers would all go for the
// next one together and lose again, each paying for a worktree it then
// removes. Only a lost race reorders: a lone claimer keeps the claim order.
func spread(rest []*task.Task) {
	if len(rest) < 2 {
		return
	}
	k := rand.Intn(len(rest))
	rotated := append(append([]*task.Task(nil), rest[k:]...), rest[:k]...)
	copy(rest, rotated)
}

// branchConflicts predicts where a reused branch's work (its commits past
// base) conflicts with main (at mainSHA, local main when "") and with the
// work of every DOING and QA task: git merge-tree, no worktree touched.
func branchConflicts(w *workflow.Workflow, id, branch, base, mainSHA string) ([]conflict.Pair, error) {
	g := w.Repo.Git
	heads, err := workspace.Tips(g, branch)
	if err != nil {
		return nil, err
	}
	head := heads[branch]
	if head == "" || head == base {
		return nil, nil
	}
	local, others, err := conflict.InFlight(w)
	if err != nil {
		return nil, err
	}
	if mainSHA == "" {
		mainSHA = local
	}
	return conflict.With(g, mainSHA, conflict.Tip{ID: id, Head: head}, others)
}

// conflictRefusal is the cause of a claim refused by conflict_policy:
// fail because the task's work conflicts with another task's; claimNext
// takes the next candidate instead, as it does for a declared overlap.
type conflictRefusal struct{ why string }

func (r *conflictRefusal) Error() string { return r.why }

// refuseConflicts applies conflict_policy to predicted conflicts with
// other tasks, as to declared overlaps. A conflict with main never
// refuses: only the worker who claims the task can resolve it.
func refuseConflicts(w *workflow.Workflow, id string, pairs []conflict.Pair) error {
	for _, p := range pairs {
		if p.B == conflict.Main || w.Config.ConflictPolicy == "ignore" {
			continue
		}
		// File names come from a task branch: escaped, they cannot drive
		// the terminal.
		why := fmt.Sprintf("its work conflicts with %s's in %s", p.B, cli.Escape(strings.Join(p.Files, ", ")))
		if w.Config.ConflictPolicy == "warn" {
			fmt.Fprintf(w.Stderr, "burl: warning: %s: %s (conflict_policy: warn)\n", id, why)
			continue
		}
		e := errs.New(errs.Lock, "%s: %s", id, why).
			WithFix("wait for %s to land (git burl conflicts shows what is left), or set conflict_policy: warn", p.B)
		e.Err = &conflictRefusal{why}
		return e
	}
	return nil
}

// reclaimFrom is where a task claimed before starts again when its branch
// is not in this clone: the remote's copy of the branch, or else a new
// branch at base_sha once this clone has that commit; base "" means
// neither is to be had and the claim starts afresh from main.
func reclaimFrom(w *workflow.Workflow, branch, base string) (have bool, newBase string, err error) {
	g := w.Repo.Git
	if w.HasRemote() {
		if have, err = workspace.FetchBranch(g, w.Config.Remote, branch); err != nil || have {
			return have, base, err
		}
	}
	exists := func() bool { return g.Has(base + "^{commit}") }
	if exists() {
		return false, base, nil
	}
	// Base fetches main; should it fail, the fresh start from main below
	// reports why.
	m := integrate.For(w)
	m.Behind = true
	if _, err := m.Base(); err == nil && exists() {
		return false, base, nil
	}
	return false, "", nil
}

// stillReady reports whether id is still in READY. A task that left it
// after claimNext listed READY went to another process.
func stillReady(w *workflow.Workflow, id string) bool {
	found, err := w.Locate(id)
	return err == nil && len(found) == 1 && found[0].Bucket == workflow.Ready
}

func tasks(es []workflow.Entry) []*task.Task {
	out := make([]*task.Task, len(es))
	for i := range es {
		out[i] = es[i].Task
	}
	return out
}

// claimHow is how claim takes a task.
type claimHow struct {
	// explicit: the task was named (claimNext checks the rest itself).
	explicit bool
	// locked, if not nil, is called once the task's lock is held.
	locked func()
	// unblock: the task is BLOCKED and leaves it in the same transition,
	// so that no watch can claim it in between (unblock --claim).
	unblock bool
	// force: a human outside any run takes a held task (claim --force).
	force bool
}

// notHeld refuses a held task to every claim but a human's that names it
// with --force outside any run (DESIGN §25: hold keeps agents off, an
// agent over MCP or inside a watch run included).
func notHeld(t *task.Task, how claimHow) error {
	h := t.Held()
	if h == "" || (how.explicit && how.force && os.Getenv("BURL_WATCHER") == "") {
		return nil
	}
	return errs.New(errs.Lock, "%s is held by a human: %s", t.ID(), h).
		WithFix("git burl unhold %s gives it back to agents; git burl claim %s --force (a human, outside any watch run) takes it", t.ID(), t.ID())
}

// claim runs PRD 14.1 for one task.
func claim(ctx *cli.Context, w *workflow.Workflow, id string, how claimHow) (cli.Output, error) {
	explicit, locked := how.explicit, how.locked
	from := workflow.Ready
	if how.unblock {
		from = workflow.Blocked
	}
	var reused bool
	var moved int
	var conflicts []conflict.Pair
	var wtPath, branch, rel, base string
	var port int
	// parent: the task this one is stacked on (stack: true), or nil.
	var parent *workflow.Entry
	res, err := w.Run(workflow.Transition{
		Verb: "claim", ID: id, From: []workflow.Bucket{from}, To: workflow.Doing,
		Message: "claim " + id,
		Prepare: func(tx *workflow.Tx) error {
			if locked != nil {
				locked()
			}
			t := tx.Task
			if err := notHeld(t, how); err != nil {
				return err
			}
			if explicit {
				if err := claimable(w, t); err != nil {
					return err
				}
			}
			if err := underCap(w); err != nil {
				return err
			}
			branch = t.Branch()
			if branch == "" {
				branch = task.BranchName(id, slugOf(tx.Entry.Path, id))
			}
			rel = t.Worktree()
			if rel == "" {
				rel = filepath.ToSlash(filepath.Join(filepath.Base(w.Repo.WorktreesDir()), branch))
			}
			wtPath = filepath.Join(w.Repo.Root, filepath.FromSlash(rel))
			base = t.BaseSHA()
			g := w.Repo.Git
			tips, err := workspace.Tips(g, branch, w.Config.MainBranch)
			if err != nil {
				return err
			}
			have := tips[branch] != ""
			if !have && base != "" {
				// Claimed before (then rejected, released or blocked) on
				// another machine: its branch, with that worker's commits,
				// may be on the remote, and its base_sha may be a main
				// commit this clone has not fetched yet.
				if have, base, err = reclaimFrom(w, branch, base); err != nil {
					return err
				}
			}
			reused = have
			if !have && base == "" {
				if parent, err = stack.Parent(w, t); err != nil {
					return err
				}
			}
			if parent != nil {
				// Its work starts on what its parent submitted (DESIGN §26).
				base = parent.Task.Str(task.KeySubmittedSHA)
			} else if !have && base == "" {
				m := integrate.For(w)
				m.Behind = true
				if base, err = m.BaseFrom(tips[w.Config.MainBranch]); err != nil {
					return err
				}
			}
			if have {
				// A watcher killed during a run on this worktree left
				// it naming the run's git dir (sandbox: none): put back
				// first, its commits taken in.
				for _, n := range sandbox.Sweep(w.Repo, wtPath) {
					fmt.Fprintf(w.Stderr, "burl: %s\n", n)
				}
			}
			createdBranch, createdWT, err := workspace.EnsureKnown(g, wtPath, branch, base, have)
			if err != nil {
				return err
			}
			faults.CrashPoint("claim", "worktree")
			// Undo runs last-registered first, and git refuses to delete a
			// branch checked out in a worktree: the worktree must go first.
			if createdBranch {
				tx.OnRollback(func() error { _, err := g.Run("branch", "-D", branch); return err })
			}
			if createdWT {
				tx.OnRollback(func() error { return workspace.Remove(g, wtPath, true) })
			}
			if port, err = claimPort(w, id); err != nil {
				return err
			}
			if createdWT {
				if err := setupWorktree(w, t, id, branch, wtPath, port); err != nil {
					return err
				}
			}
			if base == "" {
				// A reused branch whose task lost its base_sha: its fork point
				// with main is the honest answer.
				if base, err = g.Run("merge-base", branch, w.Config.MainBranch); err != nil {
					return err
				}
			}
			if reused {
				// The work continues from an old base: fetch main, so the
				// worker hears how far it has moved since.
				m := integrate.For(w)
				m.Behind = true
				cur, err := m.Base()
				if err == nil {
					moved = integrate.Drift(g, base, cur)
				}
				// A prediction is advice: a git that cannot make it
				// (older than 2.38) must not stop the work.
				if conflicts, err = branchConflicts(w, id, branch, base, cur); err != nil {
					fmt.Fprintf(w.Stderr, "burl: warning: cannot predict %s's conflicts: %v\n", id, err)
				}
				return refuseConflicts(w, id, conflicts)
			}
			return nil
		},
		Apply: func(tx *workflow.Tx) error {
			if err := notHeld(tx.Task, how); err != nil {
				return err
			}
			if err := underCap(w); err != nil {
				return err
			}
			if how.unblock {
				was, err := unblockTask(w, tx)
				if err != nil {
					return err
				}
				unblocked := map[string]any{"from": string(workflow.Blocked), "to": string(workflow.Ready), "claimed": true}
				if was != "" {
					unblocked["was_blocked"] = was
				}
				tx.Before = append(tx.Before, workflow.Step{Action: "unblock", Details: unblocked})
				tx.Details["unblocked"] = true
			}
			// Written here, not in Prepare: the runner restores the file to
			// what it was before Apply when the move fails, and claim's
			// fields must not outlive a claim that did not happen.
			t := tx.Task
			t.SetStr(task.KeyBranch, branch)
			t.SetStr(task.KeyWorktree, rel)
			t.SetStr(task.KeyBaseSHA, base)
			t.SetStr(task.KeyAssignedTo, w.Actor)
			t.SetTime(task.KeyStartedAt, tx.Now)
			if parent != nil {
				stack.Claimed(t, parent.ID, base)
				tx.Details[task.KeyStackedOn] = parent.ID
			}
			// The watcher process that claims holds the lease from the
			// start (DESIGN §15), lease_seconds long: one frozen before its
			// run's first renewal (SIGSTOP, a suspended machine) lets it
			// expire instead of holding the task forever. A hand claim has
			// none, and no lease of an earlier claim survives this one (§25).
			if me := os.Getenv("BURL_WATCHER"); me != "" {
				exp := tx.Now.Add(time.Duration(w.Config.LeaseSeconds) * time.Second)
				t.SetStr(task.KeyLeaseHolder, me)
				t.SetTime(task.KeyLeaseExpires, exp)
				// Its first run starts in this commit when it can (one push).
				watch.FoldRunStart(tx, exp)
			} else {
				for _, k := range []string{task.KeyLeaseHolder, task.KeyLeaseExpires} {
					if t.Has(k) {
						t.SetNull(k)
					}
				}
			}
			if err := portStillFree(w, id, port); err != nil {
				return err
			}
			t.SetInt(task.KeyPort, port)
			tx.Details["port"] = port
			tx.Details["branch"] = t.Branch()
			tx.Details["worktree"] = t.Worktree()
			tx.Details["base_sha"] = t.BaseSHA()
			tx.Details["reused"] = reused
			// The branch lives in this clone until it is pushed: doctor in
			// another clone tells such a task from a lost branch.
			tx.Details["clone"] = w.Clone()
			if w.Config.PushTaskBranchOnSubmit {
				tx.PushRefs = append(tx.PushRefs, "refs/heads/"+branch+":refs/heads/"+branch)
			}
			return nil
		},
	})
	if err != nil {
		return nil, err
	}
	rej := []string{}
	for _, r := range res.Entry.Task.Rejections() {
		rej = append(rej, r.Heading+": "+r.Text)
	}
	if len(rej) > 0 && !ctx.JSON {
		fmt.Fprintf(ctx.Stderr, "%s was rejected before; learn from it:\n", id)
		for _, r := range rej {
			fmt.Fprintf(ctx.Stderr, "  - %s\n", r)
		}
	}
	if us := res.Entry.Task.Unblocks(); len(us) > 0 && !ctx.JSON {
		u := us[len(us)-1]
		fmt.Fprintf(ctx.Stderr, "%s was BLOCKED before (%s): %s\n", id, u.Heading, u.Text)
	}
	if moved > 0 && !ctx.JSON {
		fmt.Fprintf(ctx.Stderr, "%s moved %d commit(s) since %s's base %s: rebase early to meet conflicts now (git -C %s rebase %s)\n",
			w.Config.MainBranch, moved, id, gitx.Short(base), wtPath, w.Config.MainBranch)
	}
	if !ctx.JSON {
		for _, p := range conflicts {
			if p.B == conflict.Main {
				fmt.Fprintf(ctx.Stderr, "burl: warning: %s's work conflicts with %s in %s: rebase it on %s in the worktree and resolve them\n",
					id, w.Config.MainBranch, cli.Escape(strings.Join(p.Files, ", ")), w.Config.MainBranch)
			}
		}
	}
	return claimOut{Task: taskObject(w, res.Entry), Worktree: wtPath, Reused: reused, Rejections: rej, MainMoved: moved, Conflicts: conflicts, entry: res.Entry}, nil
}

// heldBy is the refusal to claim a DOING task: who has it, since when and
// where its work is, so a second worker neither waits nor starts over.
func heldBy(w *workflow.Workflow, e *workflow.Entry) error {
	t := e.Task
	who := t.Str(task.KeyAssignedTo)
	if who == "" {
		who = "an unknown worker"
	}
	msg := fmt.Sprintf("%s is in DOING, claimed by %s", e.ID, who)
	if at := t.Str(task.KeyStartedAt); at != "" {
		msg += " at " + at
	}
	if p := w.WorktreePath(t); p != "" {
		msg += "; its worktree is " + p
	}
	return errs.New(errs.User, "%s", msg).WithTitle("Cannot claim %s", e.ID).
		WithFix("continue there (git burl worktree %s), or, if its worker is gone, git burl release %s and claim it again", e.ID, e.ID)
}

// claimable checks an explicitly named task the way claimNext filters.
func claimable(w *workflow.Workflow, t *task.Task) error {
	done, err := w.DoneSet(t)
	if err != nil {
		return err
	}
	if unmet := workflow.UnmetDeps(t, done); len(unmet) > 0 {
		if p, err := stack.Parent(w, t); err != nil || p != nil {
			return err // stacked on p's submitted head
		}
		// A BLOCKED dependency, or one behind a dependency, waits for a
		// human, not for work: say which, and what moves it.
		if blocked := blockedBehind(w, unmet); len(blocked) > 0 {
			first := blocked[0]
			which := "is not DONE"
			if len(blocked) == len(unmet) && !slices.ContainsFunc(blocked, func(e *workflow.Entry) bool { return !slices.Contains(unmet, e.ID) }) {
				// Each dependency is BLOCKED itself: said as claim always has.
				which = "is BLOCKED: it waits for a human, not for work"
			}
			return errs.New(errs.Lock, "%s depends on %s, which %s; %s", t.ID(), strings.Join(unmet, ", "), which, blockedSaid(w, unmet, blocked)).
				WithFix("git burl show %s says why it is BLOCKED; once that is settled: %s", first.ID, unblocking(w, first))
		}
		return errs.New(errs.Lock, "%s depends on %s, which is not DONE", t.ID(), strings.Join(unmet, ", ")).
			WithFix("finish those first, then claim it again; git burl status")
	}
	if w.Config.ConflictPolicy == "ignore" {
		return nil
	}
	doing, _, err := w.InBucket(workflow.Doing)
	if err != nil {
		return err
	}
	for _, d := range doing {
		if ok, why := overlap(t, d.Task); ok {
			msg := fmt.Sprintf("%s's scope overlaps DOING %s (%s)", t.ID(), d.ID, why)
			if w.Config.ConflictPolicy == "fail" {
				return errs.New(errs.Lock, "%s", msg).
					WithFix("wait for %s to finish, narrow the scopes, or set conflict_policy: warn", d.ID)
			}
			fmt.Fprintf(w.Stderr, "burl: warning: %s (conflict_policy: warn)\n", msg)
		}
	}
	return nil
}

// underCap enforces max_parallel (0 = no cap).
func underCap(w *workflow.Workflow) error {
	full, err := capFull(w)
	if err != nil || full == "" {
		return err
	}
	return errs.New(errs.Lock, "%s", full).
		WithFix("submit or release a DOING task first, or raise max_parallel in .burl/.workflow/config.yaml")
}

// capFull says why max_parallel refuses another claim, "" when it does not.
func capFull(w *workflow.Workflow) (string, error) {
	max := w.Config.MaxParallel
	if max <= 0 {
		return "", nil
	}
	n, err := w.Count(workflow.Doing)
	if err != nil || n < max {
		return "", err
	}
	return workflow.CapReason(max, n), nil
}

// slugOf takes the slug from the task's file name, so branch, worktree and
// file always agree.
func slugOf(path, id string) string {
	s := strings.TrimSuffix(strings.TrimPrefix(filepath.Base(path), id+"-"), ".md")
	if s == "" || strings.HasSuffix(filepath.Base(path), id+".md") {
		return "task"
	}
	return s
}
