package doctor

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/burl-dev/burl/pkg/gitx"
	"github.com/burl-dev/burl/pkg/integrate"
	"github.com/burl-dev/burl/pkg/lock"
	"github.com/burl-dev/burl/pkg/osx"
	"github.com/burl-dev/burl/pkg/task"
	"github.com/burl-dev/burl/pkg/workflow"
)

// What approve's landing leaves for doctor (DESIGN §15): work that reached
// main without burl's approve, and the records approves keep of their
// intent to move main.

// landedOutside is a QA task whose commits are in main though no approve
// recorded moving main there: a hand merge, or an agent's git merge. No
// gate ran on that work, so recording it DONE is a human's decision, not
// a repair.
func (c *checker) landedOutside(e workflow.Entry) {
	t, main := e.Task, c.w.Config.MainBranch
	f := Finding{Kind: LandedOutsideBurl, Task: strp(e.ID), Path: c.w.Rel(e.Path)}
	f.Message = fmt.Sprintf("%s is in QA and its commits are in %s already, but no burl approve put them there (a hand merge, or an agent's git merge), so no gate ran on them: %s",
		e.ID, main, integrate.LandedCommits(c.g, main, t.BaseSHA(), t.Str(task.KeySubmittedSHA)))
	f.Fix = fmt.Sprintf("decide as a human: git burl approve --accept-landed %s runs the gates on the work as it is in %s and records it DONE; or git burl reject %s --reason \"...\" (and revert it from %s yourself)",
		e.ID, main, e.ID, main)
	c.add(f)
}

// intents reports the approve records no approve will use: left by an
// approve killed before it moved main, or after it committed DONE (the
// task is no longer in QA). One whose approve is still running here, or
// that an interrupted approve needs (interrupted_approve), is not a
// finding.
func (c *checker) intents() error {
	ins, err := integrate.Intents(c.w.Repo.CommonDir)
	if err != nil {
		return err
	}
	host, _ := os.Hostname()
	unpublished := integrate.Unpublished(c.w)
	for _, in := range ins {
		if in.Host == host && in.PID != 0 && in.PID != os.Getpid() && osx.ProcessAlive(in.PID) {
			continue
		}
		why := "it does not parse"
		if in.Staging() {
			why = fmt.Sprintf("the approve --all or restack that was moving %s's branch was stopped", in.Task)
		}
		if es := c.byID[in.Task]; in.Merged != "" {
			switch {
			case len(es) == 0:
				why = in.Task + " does not exist"
			case es[0].Task == nil:
				continue // malformed_task says what is wrong with it
			case es[0].Bucket == workflow.Done && unpublished:
				continue // kept until the DONE is pushed (integrate.Unpublished)
			case es[0].Bucket != workflow.QA:
				why = fmt.Sprintf("%s is in %s now", in.Task, es[0].Bucket)
			case in.Landed(c.g, c.w.Config.MainBranch, es[0].Task.Str(task.KeySubmittedSHA)):
				continue
			default:
				why = fmt.Sprintf("%s does not hold %s: the approve was stopped before it moved %s, or rolled back", c.w.Config.MainBranch, in.Merged, c.w.Config.MainBranch)
			}
		}
		in := in
		f := Finding{Kind: StaleApproveIntent, Task: strp(in.Task), Path: c.w.Rel(in.Path), Repairable: true}
		f.Message = fmt.Sprintf("an approve of %s recorded that it was moving %s and never finished, and no approve will use the record: %s", in.Task, c.w.Config.MainBranch, why)
		f.Fix = repairCmd + " removes the record (it holds no work; approve writes a new one)"
		f.repair = func() (*change, error) {
			if err := integrate.DropIntent(c.w.Repo.CommonDir, in.Task); err != nil {
				return nil, err
			}
			return &change{action: "removed the approve record " + f.Path, noEvent: true}, nil
		}
		c.add(f)
	}
	return nil
}

// doneNotOnRemote reports DONE tasks published on the remote's workflow
// branch whose work is in local main only, not on the remote's main, as
// this clone last fetched both: what a sync of an earlier burl, or a push
// by hand, published, and another clone sees DONE without the work. When local main is a
// fast-forward of the remote's, repair pushes it; unpushed_main, when
// reported, is the same fix.
func (c *checker) doneNotOnRemote() {
	if c.held[lock.Main] {
		return // an approve running here pushes main with its DONE
	}
	for _, f := range c.report.Findings {
		if f.Kind == UnpushedMain {
			return
		}
	}
	off, err := integrate.OffRemote(c.w)
	if err != nil || len(off) == 0 {
		return
	}
	// Local DONE with the work in local main only is how a clone that does
	// not push main works; it is a problem once that DONE is published.
	w, main := c.w, c.w.Config.MainBranch
	published := gitx.Tracking(w.Config.Remote, w.Repo.Branch)
	var ids []string
	for _, e := range off {
		rel, err := filepath.Rel(w.Repo.Worktree, e.Path)
		if err != nil {
			continue
		}
		if ok, _ := c.g.Test("cat-file", "-e", published+":"+filepath.ToSlash(rel)); ok {
			ids = append(ids, e.ID)
		}
	}
	if len(ids) == 0 {
		return
	}
	r := w.Config.Remote + "/" + main
	f := Finding{Kind: DoneNotOnRemote, Path: "refs/heads/" + main}
	f.Message = fmt.Sprintf("%s are DONE on %s/%s but their work is in local %s only, not on %s (as of the last fetch): another clone sees them DONE without their work",
		strings.Join(ids, ", "), w.Config.Remote, w.Repo.Branch, main, r)
	if ff, _ := c.g.Test("merge-base", "--is-ancestor", gitx.Tracking(w.Config.Remote, main), "refs/heads/"+main); ff {
		f.Repairable = true
		f.Fix = fmt.Sprintf("%s pushes %s (a fast-forward push: git push %s %s); git burl sync does it too", repairCmd, main, w.Config.Remote, main)
		f.repair = func() (*change, error) {
			if _, err := integrate.For(w).PushAhead(); err != nil {
				return nil, err
			}
			return &change{action: "pushed " + main + " to " + w.Config.Remote, noEvent: true}, nil
		}
	} else {
		f.Fix = fmt.Sprintf("local %s has diverged from %s: bring it up to %s with the work on top (git rebase %s %s where %s is checked out), then git burl sync", main, r, r, r, main, main)
	}
	c.add(f)
}

// mainDiverged reports that approves push main here and local main has
// diverged from the remote's (as of the last fetch): an approve's
// fast-forward that never reached the remote cannot be published any more.
func (c *checker) mainDiverged() bool {
	w := c.w
	m := integrate.For(w)
	if !(w.Config.PushMainOnApprove || w.AutoPush()) || !m.HasRemote() {
		return false
	}
	local, remote := "refs/heads/"+w.Config.MainBranch, gitx.Tracking(w.Config.Remote, w.Config.MainBranch)
	if ok, _ := c.g.Test("rev-parse", "-q", "--verify", remote); !ok {
		return false
	}
	if ahead, _ := c.g.Test("merge-base", "--is-ancestor", remote, local); ahead {
		return false
	}
	behind, _ := c.g.Test("merge-base", "--is-ancestor", local, remote)
	return !behind
}

// unpublishedApprove is an interrupted approve whose fast-forward of main
// never reached the remote, where main has moved on since: recording it
// DONE would publish DONE without its work. Repair does what approve does
// then: local main goes back to the remote's (when every commit only it
// has is on a task branch, so nothing is lost), and approve redoes it.
func (c *checker) unpublishedApprove(e workflow.Entry) {
	main, r := c.w.Config.MainBranch, c.w.Config.Remote+"/"+c.w.Config.MainBranch
	f := Finding{Kind: InterruptedApprove, Task: strp(e.ID), Path: c.w.Rel(e.Path), Repairable: true}
	f.Message = fmt.Sprintf("%s is in QA and an approve of it advanced local %s, was interrupted, and never pushed it; %s has moved on since, so it cannot be finished as it is", e.ID, main, r)
	f.Fix = fmt.Sprintf("%s moves local %s back to %s (every commit only it has is on a task branch), then git burl approve %s redoes the approve", repairCmd, main, r, e.ID)
	f.repair = func() (*change, error) {
		if _, err := integrate.For(c.w).Base(); err != nil {
			return nil, err
		}
		return &change{action: fmt.Sprintf("moved local %s back to %s; git burl approve %s redoes the interrupted approve", main, r, e.ID), noEvent: true}, nil
	}
	c.add(f)
}

// landingRecord reports a landing-record journal (.git/burl/landing-record)
// burl cannot read as one it wrote: not its record, or a damaged one.
// Every workflow commit leaves it out with a warning; the landing it
// would have carried, if any, lacks its note, which verify names.
func (c *checker) landingRecord() {
	abs, why := c.w.BadLandingRecord()
	if abs == "" {
		return
	}
	f := Finding{Kind: BadLandingRecord, Path: c.w.Rel(abs), Repairable: true}
	f.Message = fmt.Sprintf("%s is not a landing record burl wrote (%v): every workflow commit leaves it out and warns", f.Path, why)
	f.Fix = repairCmd + " removes it; then git burl verify names the landing whose record is missing, if any"
	f.repair = func() (*change, error) {
		if err := os.Remove(abs); err != nil && !os.IsNotExist(err) {
			return nil, err
		}
		return &change{action: "removed " + f.Path, noEvent: true}, nil
	}
	c.add(f)
}
