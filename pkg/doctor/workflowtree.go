package doctor

// The workflow worktree itself: its branch, what a crash left in it
// uncommitted or half-moved, and its sparse checkout.

import (
	"fmt"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"

	"github.com/burl-dev/burl/pkg/fsx"
	"github.com/burl-dev/burl/pkg/task"
	"github.com/burl-dev/burl/pkg/workflow"
)

// movesIn finds, among the uncommitted workflow files about to be
// committed by repair, the task files a killed command moved between
// buckets before it could log the move: the repair event records them
// so the event log's replay agrees with the folders.
func (c *checker) movesIn(paths []string) map[string]any {
	from, to := map[string]string{}, map[string]string{}
	for _, abs := range paths {
		id, ok := task.IDFromFileName(filepath.Base(abs))
		if !ok {
			continue
		}
		b := bucketOf(abs)
		if c.status[c.wtRel(abs)] == "??" {
			to[id] = b
		} else if strings.Contains(c.status[c.wtRel(abs)], "D") {
			from[id] = b
		}
	}
	out := map[string]any{}
	for id, b := range to {
		if a, ok := from[id]; ok && a != b {
			out[id] = map[string]any{"from": a, "to": b}
		}
	}
	return out
}

// tempFile is the temp file of an atomic write whose process was killed
// before its rename: the file it was to replace is still the truth.
func (c *checker) tempFile(abs string) {
	f := Finding{Kind: TempFile, Path: c.w.Rel(abs), Repairable: true}
	f.Message = fmt.Sprintf("%s is a temp file burl writes before replacing a file; the command that wrote it was killed before the replace", f.Path)
	f.Fix = fmt.Sprintf("%s deletes it (the file it was to replace is unchanged)", repairCmd)
	f.repair = func() (*change, error) {
		if err := os.Remove(abs); err != nil && !os.IsNotExist(err) {
			return nil, err
		}
		return &change{action: "deleted " + f.Path, details: map[string]any{"deleted": f.Path}}, nil
	}
	c.add(f)
}

// workflowBranch: the workflow branch belongs in the workflow worktree.
func (c *checker) workflowBranch() {
	r := c.w.Repo
	at := c.checkedOut(r.Branch)
	if at != nil && at.Path == filepath.Clean(r.Worktree) {
		return
	}
	f := Finding{Kind: WorkflowBranch, Path: c.w.Rel(r.Worktree)}
	cur := workflow.CurrentBranch(r.Worktree)
	f.Message = fmt.Sprintf("the workflow worktree %s has %q checked out, not the workflow branch %s", f.Path, cur, r.Branch)
	f.Fix = fmt.Sprintf("git -C %s switch %s", r.Worktree, r.Branch)
	if at != nil {
		f.Message += fmt.Sprintf("; %s is checked out at %s, where burl does not look", r.Branch, at.Path)
		f.Fix = fmt.Sprintf("git -C %s switch --detach (or git worktree remove %s), then %s", at.Path, at.Path, f.Fix)
	}
	c.add(f)
}

// uncommitted reports changes in the workflow worktree. Task files, the
// event log and other tracked workflow files are what an interrupted
// command leaves before its commit: repair commits them once the task
// files are settled. Anything else is not burl's and is only reported.
func (c *checker) uncommitted() {
	paths := make([]string, 0, len(c.status))
	for p := range c.status {
		paths = append(paths, p)
	}
	sort.Strings(paths)
	wtRel := c.w.Rel(c.w.Repo.Worktree)
	workflowPrefix := c.wtRel(c.w.Dir) + "/"
	var leftovers []Finding
	var commit []string
	for _, p := range paths {
		code := c.status[p]
		abs := filepath.Join(c.w.Repo.Worktree, filepath.FromSlash(p))
		f := Finding{Path: c.w.Rel(abs)}
		rest, inWorkflow := strings.CutPrefix(p, workflowPrefix)
		id, isTask := "", false
		if inWorkflow {
			if _, ok := workflow.BucketOfDir(path.Dir(rest)); ok {
				id, isTask = task.IDFromFileName(path.Base(rest))
			}
		}
		isLog := inWorkflow && strings.HasPrefix(rest, workflow.EventsDirName+"/") && strings.HasSuffix(rest, ".ndjson")
		if inWorkflow && code == "??" && fsx.IsTemp(path.Base(rest)) {
			c.tempFile(abs)
			continue
		}
		switch {
		case !inWorkflow || (code == "??" && !isTask && !isLog):
			f.Kind = UnexpectedChange
			f.Message = fmt.Sprintf("%s (%s) is not workflow state burl wrote", f.Path, strings.TrimSpace(code))
			f.Fix = fmt.Sprintf("move it out of %s, or commit it yourself (git -C %s add -- %s && git -C %s commit)", wtRel, wtRel, p, wtRel)
			c.add(f)
			continue
		case !c.w.Config.WorkflowAutoCommit:
			continue // uncommitted is the normal state then
		}
		f.Kind = UncommittedChange
		if isTask {
			f.Task = strp(id)
		}
		f.Message = fmt.Sprintf("%s has uncommitted changes (%s), as a command killed before its commit leaves them", f.Path, strings.TrimSpace(code))
		if isTask && c.fileTrouble[id] {
			f.Fix = "settle " + id + "'s other findings first; then " + repairCmd + " commits it"
		} else if isTask && strings.Contains(code, "D") && len(c.byID[id]) == 0 {
			// Committing this would commit the loss of the task.
			f.Message = fmt.Sprintf("%s was deleted and %s is in no other bucket", f.Path, id)
			f.Fix = fmt.Sprintf("restore it: git -C %s checkout HEAD -- %s", wtRel, p)
		} else {
			f.Repairable = true
			f.Fix = repairCmd + " commits it (a repair event)"
			commit = append(commit, abs)
		}
		leftovers = append(leftovers, f)
	}
	moved := c.movesIn(commit)
	for _, f := range leftovers {
		if f.Repairable {
			f.repair = func() (*change, error) {
				var rels []string
				for _, p := range commit {
					rels = append(rels, c.w.Rel(p))
				}
				details := map[string]any{"committed": rels}
				ch := &change{action: "committed " + strings.Join(rels, ", "), paths: commit, details: details}
				if len(moved) > 0 {
					details["moved"] = moved
				}
				// An approve killed after its move and before its commit
				// has advanced main here, unpushed: the commit that records
				// its DONE is an interrupted approve's, which the next push
				// carries main with (or drops, if the remote's main moved
				// on), never a DONE published alone.
				for _, m := range moved {
					if m.(map[string]any)["to"] == string(workflow.Done) {
						ch.as = InterruptedApprove
					}
				}
				return ch, nil
			}
		}
		c.add(f)
	}
}

// sparseDisk reports the files of old DONE months a sparse workflow
// worktree keeps on disk outside its cone when they are gone from disk:
// every reader would miss those tasks. Repair writes them back.
func (c *checker) sparseDisk() error {
	missing, err := c.w.MissingOutsideCone()
	if err != nil || len(missing) == 0 {
		return err
	}
	wtRel := c.w.Rel(c.w.Repo.Worktree)
	f := Finding{Kind: MissingOnDisk, Path: c.w.Rel(filepath.Join(c.w.Repo.Worktree, filepath.FromSlash(missing[0]))), Repairable: true}
	f.Message = fmt.Sprintf("%d committed file(s) outside the sparse cone of %s are not on disk (the first: %s), as a git sparse-checkout command run in %s leaves them; burl reads them from disk",
		len(missing), wtRel, f.Path, wtRel)
	f.Fix = repairCmd + " writes them back from the workflow branch"
	f.repair = func() (*change, error) {
		if err := c.w.RestoreOutsideCone(missing); err != nil {
			return nil, err
		}
		return &change{action: fmt.Sprintf("wrote %d file(s) back from the workflow branch", len(missing)),
			details: map[string]any{"restored": len(missing)}}, nil
	}
	c.add(f)
	return nil
}

// sparseOpt is the option git rm and git mv need for the old months'
// files of a sparse workflow worktree ("--sparse "), or "".
func (c *checker) sparseOpt() string {
	if c.w.Sparse() {
		return "--sparse "
	}
	return ""
}
