package integrate

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/burl-dev/burl/pkg/errs"
	"github.com/burl-dev/burl/pkg/gitx"
	"github.com/burl-dev/burl/pkg/task"
	"github.com/burl-dev/burl/pkg/workflow"
)

// DONE on the remote implies its work on the remote's main, at every
// moment (DESIGN §15). A clone that approves without pushing main
// (push_main_on_approve off) holds DONE tasks whose work is in its main
// only; publishing the workflow branch must carry main along, or not
// happen.

// clockSkew is how much earlier than a commit an approve that landed it
// may have recorded its completed_at (clocks of two machines).
const clockSkew = time.Hour

// OffRemote lists the DONE tasks whose work is in local main but not in
// the remote's main as this clone last fetched it (its remote-tracking
// ref): what publishing DONE would publish without its work. Only commits
// local main has and the remote's lacks can hold such work, and a task
// landed there was completed after they were made, so the DONE month
// shards older than the oldest of them are not read.
func OffRemote(w *workflow.Workflow) ([]workflow.Entry, error) {
	m := For(w)
	return OffRemoteAt(w, m.rev("refs/heads/"+m.Branch), m.rev(gitx.Tracking(m.Remote, m.Branch)))
}

// OffRemoteAt is OffRemote for a caller that has read local main (local)
// and its remote-tracking ref (remote) already ("" when missing).
func OffRemoteAt(w *workflow.Workflow, local, remote string) ([]workflow.Entry, error) {
	m := For(w)
	if !m.HasRemote() {
		return nil, nil
	}
	localRef, remoteRef := "refs/heads/"+m.Branch, gitx.Tracking(m.Remote, m.Branch)
	if local == "" || remote == "" || local == remote {
		return nil, nil
	}
	out, err := m.Git.Run("log", "--format=%ct", "--end-of-options", remote+".."+local)
	if err != nil || out == "" {
		return nil, err
	}
	oldest := int64(-1)
	for _, l := range strings.Split(out, "\n") {
		if ct, err := strconv.ParseInt(l, 10, 64); err == nil && (oldest < 0 || ct < oldest) {
			oldest = ct
		}
	}
	since := time.Unix(oldest, 0).UTC().Add(-clockSkew)
	done, err := doneSince(w, since)
	if err != nil {
		return nil, err
	}
	var off []workflow.Entry
	for _, e := range done {
		base, sub := e.Task.BaseSHA(), e.Task.Str(task.KeySubmittedSHA)
		if in, _ := WorkInMain(m.Git, remoteRef, base, sub); in {
			continue
		}
		if in, _ := WorkInMain(m.Git, localRef, base, sub); in {
			off = append(off, e)
		}
	}
	sort.Slice(off, func(i, j int) bool { return off[i].ID < off[j].ID })
	return off, nil
}

// IDs are the entries' task IDs.
func IDs(es []workflow.Entry) []string {
	ids := make([]string, 0, len(es))
	for _, e := range es {
		ids = append(ids, e.ID)
	}
	return ids
}

// doneSince reads the DONE tasks completed at or after since, from the
// month shards that can hold them.
func doneSince(w *workflow.Workflow, since time.Time) ([]workflow.Entry, error) {
	dirs, err := w.DoneShardDirs()
	if err != nil {
		return nil, err
	}
	// Tasks of a flat DONE/ (before month shards) are old by definition.
	first := workflow.DoneShard(since)
	var out []workflow.Entry
	for _, d := range dirs {
		if filepath.Base(d) < first {
			continue
		}
		ents, err := os.ReadDir(d)
		if err != nil {
			return nil, err
		}
		for _, f := range ents {
			id, ok := task.IDFromFileName(f.Name())
			if !ok {
				continue
			}
			e := workflow.Entry{ID: id, Bucket: workflow.Done, Path: filepath.Join(d, f.Name())}
			w.Read(&e)
			if e.Task == nil {
				continue // malformed: doctor's to report
			}
			if at, err := time.Parse(time.RFC3339, e.Task.Str(task.KeyCompletedAt)); err == nil && at.Before(since) {
				continue
			}
			out = append(out, e)
		}
	}
	return out, nil
}

// PublishMain decides, before the workflow branch is pushed, what must go
// with it so that no DONE task reaches the remote without its work: the
// refspec pushing local main ("" when the remote's main has every DONE
// task's work already), or an error naming the tasks when local main
// cannot be pushed as a fast-forward. It fetches the remote's main first.
func PublishMain(w *workflow.Workflow) (string, error) {
	m := For(w)
	if !m.HasRemote() {
		return "", nil
	}
	if err := m.Git.FetchTracking(m.Remote, m.Branch); err != nil {
		return "", errs.Wrap(err, errs.Git, fmt.Sprintf("Cannot fetch %s/%s to check that every DONE task's work is there", m.Remote, m.Branch))
	}
	off, err := OffRemote(w)
	if err != nil || len(off) == 0 {
		return "", err
	}
	ids := IDs(off)
	local, remote := m.rev("refs/heads/"+m.Branch), m.rev(gitx.Tracking(m.Remote, m.Branch))
	if ff, err := m.Git.Test("merge-base", "--is-ancestor", remote, local); err != nil {
		return "", err
	} else if ff {
		return local + ":refs/heads/" + m.Branch, nil
	}
	r := m.Remote + "/" + m.Branch
	return "", errs.New(errs.Git, "%s are DONE here, but their work is only in local %s (%s), which has diverged from %s (%s); publishing the workflow branch would put them DONE on %s without their work, so nothing was pushed",
		strings.Join(ids, ", "), m.Branch, gitx.Short(local), r, gitx.Short(remote), m.Remote).
		WithTitle("Cannot publish DONE without its work").
		WithFix("bring %s up to %s with the work on top (git rebase %s %s, in the worktree where %s is checked out), then git burl sync again; git burl doctor shows the same",
			m.Branch, r, r, m.Branch, m.Branch)
}

// PushStranded pushes this clone's workflow commits that never reached the
// remote (a command killed between its commit and its push), as the next
// transition would, for a caller that holds the workflow lock: stranded
// approves whose main can no longer go with them are dropped
// (SettleStranded), and DONE never goes without its work (PublishMain).
func PushStranded(w *workflow.Workflow) error {
	refs, err := w.SettleStranded()
	if err != nil {
		return err
	}
	if len(refs) == 0 {
		mainRef, err := PublishMain(w)
		if err != nil {
			return err
		}
		if mainRef != "" {
			refs = append(refs, mainRef)
		}
	}
	return w.PushWorkflow(refs...)
}
