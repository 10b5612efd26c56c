package doctor

import (
	"fmt"

	"github.com/burl-dev/burl/pkg/gitx"
	"github.com/burl-dev/burl/pkg/integrate"
	"github.com/burl-dev/burl/pkg/lock"
)

// unpushed reports what a command killed between its commit and its push
// left in this clone only, by the remote-tracking refs (no network): with
// push_main_on_approve, main ahead of the remote's main (an approve's
// fast-forward); with workflow_auto_push, the workflow branch ahead of
// the remote's. Nothing else would ever push them.
func (c *checker) unpushed() {
	w := c.w
	if !w.HasRemote() {
		return
	}
	ahead := func(branch string) bool {
		local, err := c.g.Run("rev-parse", "-q", "--verify", "refs/heads/"+branch)
		if err != nil {
			return false
		}
		remote, err := c.g.Run("rev-parse", "-q", "--verify", gitx.Tracking(w.Config.Remote, branch))
		if err != nil || remote == local {
			return false
		}
		in, _ := c.g.Test("merge-base", "--is-ancestor", remote, local)
		return in
	}
	main := w.Config.MainBranch
	// An approve running here moves main ahead for a moment, and pushes it
	// with its DONE: pushing it first would publish work without DONE.
	if (w.Config.PushMainOnApprove || w.AutoPush()) && !c.held[lock.Main] && ahead(main) {
		f := Finding{Kind: UnpushedMain, Path: "refs/heads/" + main, Repairable: true}
		f.Message = fmt.Sprintf("%s is ahead of %s/%s and push_main_on_approve is on: an approve was killed after its fast-forward, before its push, so that work is in this clone only", main, w.Config.Remote, main)
		f.Fix = fmt.Sprintf("%s pushes it (a fast-forward push: git push %s %s)", repairCmd, w.Config.Remote, main)
		f.repair = func() (*change, error) {
			if _, err := integrate.For(w).PushAhead(); err != nil {
				return nil, err
			}
			return &change{action: "pushed " + main + " to " + w.Config.Remote, noEvent: true}, nil
		}
		c.add(f)
	}
	if wb := w.Repo.Branch; w.AutoPush() && ahead(wb) {
		f := Finding{Kind: UnpushedWorkflow, Path: "refs/heads/" + wb, Repairable: true}
		f.Message = fmt.Sprintf("the workflow branch %s is ahead of %s/%s with workflow_auto_push on: a command was killed after its commit, before its push", wb, w.Config.Remote, wb)
		f.Fix = fmt.Sprintf("%s pushes it (as git burl sync --push does)", repairCmd)
		f.repair = func() (*change, error) {
			// What the next transition would push, as it would push it:
			// never a DONE without its work on the remote's main.
			if err := integrate.PushStranded(w); err != nil {
				return nil, err
			}
			return &change{action: "pushed " + wb + " to " + w.Config.Remote, noEvent: true}, nil
		}
		c.add(f)
	}
}
