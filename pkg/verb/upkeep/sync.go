package upkeep

import (
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/burl-dev/burl/pkg/cli"
	"github.com/burl-dev/burl/pkg/errs"
	"github.com/burl-dev/burl/pkg/gitx"
	"github.com/burl-dev/burl/pkg/integrate"
	"github.com/burl-dev/burl/pkg/land"
	"github.com/burl-dev/burl/pkg/landsync"
	"github.com/burl-dev/burl/pkg/notes"
	"github.com/burl-dev/burl/pkg/qa"
	"github.com/burl-dev/burl/pkg/verb"
	"github.com/burl-dev/burl/pkg/workflow"
)

// Sync is `git burl sync`: what cmd/git-burl-sync runs. Only the
// verbs a binary names are linked into it.
func Sync() cli.Command { return &syncCmd{} }

type syncCmd struct {
	cli.JSONFlag
	Pull   bool `long:"pull" description:"Only fetch and fast-forward the workflow branch and the DOING/QA task branches (resume here)"`
	Push   bool `long:"push" description:"Only push the workflow branch and the DOING/QA task branches (pause here)"`
	Settle bool `long:"settle" description:"Only settle the open pull requests (landing: pr): merged ones DONE, closed or changes-requested ones back to READY"`
}

// branchSync is what a pull did to one task branch.
type branchSync struct {
	Task   string `json:"task"`
	Branch string `json:"branch"`
	// Result: created, fast-forwarded, up-to-date, ahead, diverged,
	// not-on-remote or failed.
	Result string `json:"result"`
	Detail string `json:"detail,omitempty"`
}

type syncOut struct {
	Remote   string               `json:"remote"`
	Pull     *workflow.PullResult `json:"pull,omitempty"`
	Branches []branchSync         `json:"branches"`
	Pushed   []string             `json:"pushed"`
	Commit   string               `json:"commit,omitempty"`
	// Settle: with landing: pr, what this sync did with the open pull
	// requests (DESIGN §17).
	Settle *landsync.SettleReport `json:"settle,omitempty"`
	// Main: what the pull or settle round did with local main (DESIGN
	// §20), fast-forwarded to the remote's where that touches nobody's
	// work.
	Main    *landsync.LocalMain `json:"main,omitempty"`
	pushing bool
	missing []string // DOING/QA tasks without a worktree here
}

func (o syncOut) Human(w io.Writer) {
	if p := o.Pull; p != nil {
		switch {
		case p.Remote == "":
			fmt.Fprintf(w, "%s has no workflow branch yet: nothing to pull\n", o.Remote)
		case p.Pulled():
			fmt.Fprintf(w, "Pulled the workflow branch: %s → %s\n", gitx.Short(p.Before), gitx.Short(p.After))
		case p.Ahead > 0:
			fmt.Fprintf(w, "The workflow branch is ahead of %s by %d commit(s) not pushed yet\n", o.Remote, p.Ahead)
		default:
			fmt.Fprintln(w, "The workflow branch is up to date")
		}
		for _, b := range o.Branches {
			line := fmt.Sprintf("  %s %s: %s", b.Task, b.Branch, b.Result)
			if b.Detail != "" {
				line += " (" + b.Detail + ")"
			}
			fmt.Fprintln(w, line)
		}
		for _, id := range o.missing {
			fmt.Fprintf(w, "  %s has no worktree here: git burl worktree --ensure %s\n", id, id)
		}
	}
	if s := o.Settle; s != nil {
		for _, p := range s.PRs {
			line := fmt.Sprintf("  %s pull request #%d: %s", p.Task, p.Number, p.Result)
			switch p.Result {
			case "merged":
				line += fmt.Sprintf(" as %s (%s); %s → DONE", gitx.Short(p.MergedSHA), p.How, p.Task)
			case "closed", "changes_requested":
				if p.To != "" {
					line += "; " + p.Task + " → " + p.To
				}
				line += ": " + qa.OneLine(p.Reason)
			case "checks_failed":
				line += "; " + p.Task + " → " + p.To + ": " + qa.OneLine(p.Reason)
			case "retargeted", "not_retargeted":
				if p.To != "" {
					line += "; " + p.Task + " → " + p.To
				}
				line += ": " + qa.OneLine(p.Reason)
			case "open":
				if p.Checks != "" {
					line += " (checks: " + p.Checks + ")"
				}
				if p.Reason != "" {
					line += "; " + qa.OneLine(p.Reason)
				}
			}
			fmt.Fprintln(w, line)
		}
	}
	if m := o.Main; m != nil {
		r := o.Remote + "/" + m.Branch
		switch m.Result {
		case "fast-forwarded":
			fmt.Fprintf(w, "Local %s fast-forwarded to %s (%s): %d commit(s)\n", m.Branch, r, gitx.Short(m.Remote), m.Behind)
		case "behind":
			fmt.Fprintf(w, "Local %s is %d commit(s) behind %s and stays at %s: %s\n  to catch up: %s\n", m.Branch, m.Behind, r, gitx.Short(m.Local), m.Reason, m.Command)
		case "diverged":
			fmt.Fprintf(w, "Local %s and %s have diverged: %s\n  to see what only local %s has: %s\n", m.Branch, r, m.Reason, m.Branch, m.Command)
		case "failed":
			fmt.Fprintf(w, "Local %s: cannot compare with %s: %s\n", m.Branch, r, m.Reason)
		}
	}
	if o.pushing {
		if len(o.Pushed) == 0 {
			fmt.Fprintf(w, "Nothing to push: %s has the workflow branch and the task branches as they are here\n", o.Remote)
		} else {
			fmt.Fprintf(w, "Pushed to %s: %s\n", o.Remote, strings.Join(o.Pushed, ", "))
		}
	}
}

func (c *syncCmd) Run(ctx *cli.Context, args []string) (cli.Output, error) {
	if len(args) > 0 {
		return nil, cli.UsageError("sync", "takes no arguments")
	}
	only := c.Settle && !c.Pull && !c.Push
	pull, push := !only && (c.Pull || !c.Push), !only && (c.Push || !c.Pull)
	w, err := verb.Open(ctx)
	if err != nil {
		return nil, err
	}
	if !w.HasRemote() {
		return nil, errs.New(errs.User, "this clone has no remote %q to sync with", w.Config.Remote).
			WithFix("git remote add %s URL (or set remote: in .burl/.workflow/config.yaml)", w.Config.Remote)
	}
	out := &syncOut{Remote: w.Config.Remote, Branches: []branchSync{}, Pushed: []string{}, pushing: push}
	if err := c.branches(ctx, w, out, pull, false); err != nil {
		return nil, err
	}
	// Settled after the pull (another clone's pull requests are known),
	// before the push (which publishes what settling recorded), and
	// outside the workflow lock: each settlement is a transition of its
	// own, pushed at once with workflow_auto_push.
	if w.Config.Landing == "pr" && (pull || c.Settle) {
		if out.Settle, err = landsync.Settle(w); err != nil {
			return nil, err
		}
	}
	if pull || c.Settle {
		out.Main = landsync.FollowMain(w)
	}
	if err := c.branches(ctx, w, out, false, push); err != nil {
		return nil, err
	}
	return out, nil
}

// branches is sync's pull and push, under the workflow lock.
func (c *syncCmd) branches(ctx *cli.Context, w *workflow.Workflow, out *syncOut, pull, push bool) error {
	if !pull && !push {
		return nil
	}
	wl, err := w.LockWorkflow("sync")
	if err != nil {
		return err
	}
	defer wl.Release()
	if pull {
		if out.Pull, err = w.PullWorkflow(); err != nil {
			return err
		}
		if err := c.pullTasks(ctx, w, out); err != nil {
			return err
		}
	}
	if push {
		return c.push(ctx, w, out)
	}
	return nil
}

// liveTasks are the DOING and QA tasks: the ones whose branches carry work
// in progress that another machine may resume.
func liveTasks(w *workflow.Workflow) ([]workflow.Entry, error) {
	var out []workflow.Entry
	for _, b := range []workflow.Bucket{workflow.Doing, workflow.QA} {
		es, _, err := w.InBucket(b)
		if err != nil {
			return nil, err
		}
		for _, e := range es {
			// A task whose pull request is open has its branch on the
			// remote as approve rebased it: the forge's, not a worker's
			// to resume (sync settles it instead).
			if e.Task.Branch() != "" && land.PRNumber(e.Task) == 0 {
				out = append(out, e)
			}
		}
	}
	return out, nil
}

// remoteHeads lists the remote's branches (by name) and its landing
// records (by notes.Ref) in one round trip.
func remoteHeads(g gitx.Git, remote string) (map[string]string, error) {
	out, err := g.Run("ls-remote", remote, "refs/heads/*", notes.Ref)
	if err != nil {
		return nil, errs.Wrap(err, errs.Git, "Cannot list the branches of "+remote)
	}
	heads := map[string]string{}
	for _, l := range strings.Split(out, "\n") {
		if sha, ref, ok := strings.Cut(l, "\t"); ok {
			heads[strings.TrimPrefix(ref, "refs/heads/")] = sha
		}
	}
	return heads, nil
}

func localTip(g gitx.Git, branch string) string {
	sha, err := g.Run("rev-parse", "-q", "--verify", "refs/heads/"+branch)
	if err != nil {
		return ""
	}
	return sha
}

// pullTasks fetches the task branches of DOING/QA tasks and brings the
// local ones up to date, fast-forward only: a branch with local commits
// the remote lacks is left as it is.
func (c *syncCmd) pullTasks(ctx *cli.Context, w *workflow.Workflow, out *syncOut) error {
	g, remote := w.Repo.Git, w.Config.Remote
	live, err := liveTasks(w)
	if err != nil || len(live) == 0 {
		return err
	}
	heads, err := remoteHeads(g, remote)
	if err != nil {
		return err
	}
	var refspecs []string
	for _, e := range live {
		if b := e.Task.Branch(); heads[b] != "" {
			refspecs = append(refspecs, "+refs/heads/"+b+":refs/remotes/"+remote+"/"+b)
		}
	}
	if len(refspecs) > 0 {
		fetch := gitx.Fetch(remote, refspecs...)
		if _, err := g.Run(fetch...); err != nil {
			return errs.Wrap(err, errs.Git, "Cannot fetch the task branches from "+remote)
		}
	}
	for _, e := range live {
		b := e.Task.Branch()
		r := branchSync{Task: e.ID, Branch: b}
		r.Result, r.Detail = pullBranch(w, b, heads[b])
		if r.Result == "diverged" || r.Result == "failed" {
			ctx.Warnf("%s: %s %s (%s)", e.ID, b, r.Result, r.Detail)
		}
		out.Branches = append(out.Branches, r)
		if p := w.WorktreePath(e.Task); p != "" {
			if _, err := os.Stat(p); err != nil {
				out.missing = append(out.missing, e.ID)
			}
		}
	}
	return nil
}

func pullBranch(w *workflow.Workflow, b, rsha string) (result, detail string) {
	g, remote := w.Repo.Git, w.Config.Remote
	if rsha == "" {
		return "not-on-remote", ""
	}
	l := localTip(g, b)
	switch {
	case l == "":
		if _, err := g.Run("branch", "-q", "--track", b, remote+"/"+b); err != nil {
			return "failed", err.Error()
		}
		return "created", "from " + remote + "/" + b
	case l == rsha:
		return "up-to-date", ""
	}
	if behind, _ := g.Test("merge-base", "--is-ancestor", l, rsha); behind {
		// The same fast-forward approve uses for main: never switches or
		// dirties the worktree the branch may be checked out in.
		m := integrate.For(w)
		m.Branch = b
		if err := m.Advance(l, rsha); err != nil {
			return "failed", err.Error()
		}
		return "fast-forwarded", gitx.Short(l) + " → " + gitx.Short(rsha)
	}
	if ahead, _ := g.Test("merge-base", "--is-ancestor", rsha, l); ahead {
		return "ahead", "local commits not pushed yet"
	}
	return "diverged", fmt.Sprintf("local %s, %s %s; reconcile by hand", gitx.Short(l), remote, gitx.Short(rsha))
}

// news reports whether local has something the remote tip lacks. A local
// tip the remote already contains has nothing to push (pushing it would be
// refused as a rewind); an unknown remote commit is not fetched here, so
// the push itself decides.
func news(g gitx.Git, local, remote string) bool {
	if local == "" || local == remote {
		return false
	}
	if remote == "" {
		return true
	}
	behind, err := g.Test("merge-base", "--is-ancestor", local, remote)
	return err != nil || !behind
}

// push sends the workflow branch and the DOING/QA task branches that
// differ from the remote in one atomic push, with a sync event committed
// just before so the pause point travels with them. A refused push takes
// that event commit back, so the local branch is left as it was.
func (c *syncCmd) push(ctx *cli.Context, w *workflow.Workflow, out *syncOut) error {
	g := w.Repo.Git
	if dirty, _ := gitx.In(w.Repo.Worktree).Run("status", "--porcelain"); dirty != "" && w.Config.WorkflowAutoCommit {
		// Only commits travel: what a crash left uncommitted stays here.
		ctx.Warnf("%s has uncommitted changes, which are not pushed; git burl doctor says what they are", w.Rel(w.Repo.Worktree))
	}
	if w.Config.PushMainOnApprove {
		// An approve killed between its fast-forward and its push left
		// main ahead here: finish that push (fast-forward only).
		pushed, err := integrate.For(w).PushAhead()
		if err != nil {
			ctx.Warnf("%s is ahead of %s/%s but could not be pushed: %v", w.Config.MainBranch, w.Config.Remote, w.Config.MainBranch, err)
		} else if pushed {
			out.Pushed = append(out.Pushed, w.Config.MainBranch)
		}
	}
	heads, err := remoteHeads(g, w.Config.Remote)
	if err != nil {
		return err
	}
	live, err := liveTasks(w)
	if err != nil {
		return err
	}
	var refs, names []string
	for _, e := range live {
		if b := e.Task.Branch(); news(g, localTip(g, b), heads[b]) {
			refs = append(refs, "refs/heads/"+b+":refs/heads/"+b)
			names = append(names, b)
		}
	}
	// DONE travels only with its work: main goes in the same atomic push
	// when the remote's main lacks a DONE task's work, or nothing does
	// (also when that DONE is published already, as an earlier burl did).
	mainRef, err := integrate.PublishMain(w)
	if err != nil {
		return err
	}
	if mainRef != "" {
		refs = append(refs, mainRef)
		names = append(names, w.Config.MainBranch)
	}
	wb := w.Repo.Branch
	// The landing records go with the workflow branch (PushWorkflow adds
	// them): records alone are news too, judged against the remote as it
	// is now, as the branches are (its notes as last fetched may be older
	// than this clone's own last push).
	local, _, err := notes.State(w.Repo, w.Config.Remote)
	if err != nil {
		return err
	}
	records := news(g, local, heads[notes.Ref])
	if len(refs) == 0 && !news(g, localTip(g, wb), heads[wb]) && !records {
		return nil
	}
	before := localTip(g, wb)
	if out.Commit, err = w.Event("sync", "", map[string]any{"remote": w.Config.Remote, "branches": append([]string{wb}, names...)},
		"sync: push to "+w.Config.Remote); err != nil {
		return err
	}
	if err := w.PushWorkflow(refs...); err != nil {
		if out.Commit != "" {
			if _, rerr := gitx.In(w.Repo.Worktree).Run("reset", "-q", "--keep", before); rerr != nil {
				return fmt.Errorf("%w; taking the sync event commit back also failed: %v", err, rerr)
			}
		}
		return err
	}
	out.Pushed = append(append(out.Pushed, wb), names...)
	if records {
		out.Pushed = append(out.Pushed, notes.Ref)
	}
	return nil
}
