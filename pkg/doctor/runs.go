package doctor

import (
	"fmt"
	"strings"

	"github.com/burl-dev/burl/pkg/sandbox"
)

// interruptedRuns are agent runs whose watcher is gone (killed, or the
// machine rebooted): their run directory is left, and without a sandbox
// their worktree's .git still names the run's git dir. Repair ends them as
// the next watcher would (sandbox.Sweep): their commits taken in while the
// task branch is where the run found it, the .git file put back.
func (c *checker) interruptedRuns() {
	for _, info := range sandbox.Stale(c.w.Repo) {
		f := Finding{Kind: InterruptedRun, Path: c.w.Rel(c.w.Repo.RunsDir()) + "/" + info.Run, Repairable: true,
			Fix: repairCmd + " takes in the run's commits and puts the worktree's .git back (as the next watch does)"}
		f.Message = fmt.Sprintf("agent run %s was interrupted: its watcher is gone", info.Run)
		if info.Task != "" {
			f.Task = strp(info.Task)
			f.Message = fmt.Sprintf("the agent run %s of %s (worktree %s) was interrupted: its watcher is gone", info.Run, info.Task, c.w.Rel(info.Worktree))
		}
		wt := info.Worktree
		f.repair = func() (*change, error) {
			notes := sandbox.Sweep(c.w.Repo, wt)
			return &change{action: "ended the interrupted run " + info.Run, details: map[string]any{"run": info.Run, "notes": strings.Join(notes, "; ")}}, nil
		}
		c.add(f)
	}
}
