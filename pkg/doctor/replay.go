package doctor

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/burl-dev/burl/pkg/events"
	"github.com/burl-dev/burl/pkg/fsx"
	"github.com/burl-dev/burl/pkg/task"
	"github.com/burl-dev/burl/pkg/workflow"
)

// replay is pawl's "state = replay(log)": the bucket each task's last
// transition left it in, by the event log alone. add puts a task in READY
// (or PROPOSED, its details say);
// every transition records {from, to}; a repair that commits moves a
// killed command made records them under "moved".
func replay(evs []events.Event) map[string]workflow.Bucket {
	out := map[string]workflow.Bucket{}
	for _, e := range evs {
		id := e.TaskID()
		if e.Action == "add" && id != "" {
			out[id] = workflow.Ready
			// A proposal is added to PROPOSED (DESIGN §27).
			if b, ok := workflow.ParseBucket(fmt.Sprint(e.Details["bucket"])); ok {
				out[id] = b
			}
		}
		if to, ok := e.Details["to"].(string); ok && id != "" {
			if b, ok := workflow.ParseBucket(to); ok {
				out[id] = b
			}
		}
		if moved, ok := e.Details["moved"].(map[string]any); ok {
			for mid, m := range moved {
				if mm, ok := m.(map[string]any); ok {
					if b, ok := workflow.ParseBucket(fmt.Sprint(mm["to"])); ok {
						out[mid] = b
					}
				}
			}
		}
	}
	return out
}

// claimedIn is the clone the last claim of id was made in, from the event
// log ("" when no claim recorded one).
func (c *checker) claimedIn(id string) string {
	if c.clones == nil {
		c.clones = map[string]string{}
		evs, _, _ := events.Read(c.w.EventsDir(), events.Filter{Action: "claim"})
		for _, e := range evs {
			if clone, ok := e.Details["clone"].(string); ok {
				c.clones[e.TaskID()] = clone
			}
		}
	}
	return c.clones[id]
}

// crossCheck compares every task's folder with the log's replay. A task
// the log knows and no bucket holds has been lost (a file deleted by hand,
// or a move killed half way): repair restores its last version from the
// workflow branch, never commits its loss. A task in another bucket than
// its last transition says is reported; the folder wins (PRD 7.2), so
// nothing is moved.
func (c *checker) crossCheck() error {
	evs, _, err := events.Read(c.w.EventsDir(), events.Filter{})
	if err != nil {
		return err
	}
	want := replay(evs)
	ids := make([]string, 0, len(want))
	for id := range want {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	for _, id := range ids {
		es := c.byID[id]
		switch {
		case len(es) == 0:
			c.lost(id, want[id])
		case len(es) == 1 && es[0].Bucket != want[id] && c.committed(es[0].Path):
			c.add(Finding{Kind: LogMismatch, Task: strp(id), Path: c.w.Rel(es[0].Path),
				Message: fmt.Sprintf("%s is in %s but its last transition in the event log left it in %s: the file was moved by hand, or a transition's event was lost", id, es[0].Bucket, want[id]),
				Fix: fmt.Sprintf("the folder wins: if %s is right, nothing is lost; otherwise move the file back with git -C %s mv and commit (git burl log --task %s shows its history)",
					es[0].Bucket, c.w.Rel(c.w.Repo.Worktree), id)})
		}
	}
	return nil
}

// lost reports a task the log knows and no bucket holds, with the path and
// content of its last version on the workflow branch when git has one.
func (c *checker) lost(id string, want workflow.Bucket) {
	f := Finding{Kind: LostTask, Task: strp(id)}
	rel, content := c.lastVersion(id)
	if rel == "" {
		f.Path = c.w.Rel(c.w.BucketDir(want))
		f.Message = fmt.Sprintf("%s is in no bucket, but the event log says its last transition left it in %s, and the workflow branch has no version of its file", id, want)
		f.Fix = "restore the file from a backup or another clone (git burl sync --pull), then git burl doctor"
		c.add(f)
		return
	}
	abs := filepath.Join(c.w.Repo.Worktree, filepath.FromSlash(rel))
	f.Path = c.w.Rel(abs)
	f.Message = fmt.Sprintf("%s is in no bucket, but the event log says its last transition left it in %s: its file %s was deleted", id, want, f.Path)
	f.Fix = fmt.Sprintf("%s restores its last version from the workflow branch (git never loses a task)", repairCmd)
	f.Repairable = true
	f.repair = func() (*change, error) {
		if err := os.MkdirAll(filepath.Dir(abs), 0o755); err != nil {
			return nil, err
		}
		if err := fsx.WriteFile(abs, content); err != nil {
			return nil, err
		}
		return &change{action: "restored " + f.Path + " from the workflow branch", paths: []string{abs},
			details: map[string]any{"restored": f.Path}}, nil
	}
	c.add(f)
}

// lastVersion finds the newest committed version of a task's file on the
// workflow branch: the file at HEAD when only the worktree lost it, else
// the version before the commit that deleted it. rel is relative to the
// workflow worktree.
func (c *checker) lastVersion(id string) (rel string, content []byte) {
	g := c.wg
	prefix := c.wtRel(c.w.Dir)
	spec := ":(glob)" + prefix + "/**/" + id + "-*.md"
	if out, err := g.Run("ls-tree", "-r", "--name-only", "HEAD", "--", prefix); err == nil {
		for _, p := range strings.Split(out, "\n") {
			if fid, ok := task.IDFromFileName(filepath.Base(p)); ok && fid == id {
				if data, err := g.RunInput(nil, "cat-file", "blob", "HEAD:"+p); err == nil {
					return p, data
				}
			}
		}
	}
	out, err := g.Run("log", "-1", "--diff-filter=D", "--format=%H", "--name-only", "HEAD", "--", spec)
	if err != nil || out == "" {
		return "", nil
	}
	lines := strings.Split(out, "\n")
	sha := lines[0]
	for _, p := range lines[1:] {
		if fid, ok := task.IDFromFileName(filepath.Base(p)); ok && fid == id {
			if data, err := g.RunInput(nil, "cat-file", "blob", sha+"^:"+p); err == nil {
				return p, data
			}
		}
	}
	return "", nil
}
