package doctor

// A task ID with more than one file: which copy survives, and what a
// repair may prove before it removes the others.

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/burl-dev/burl/pkg/integrate"
	"github.com/burl-dev/burl/pkg/task"
	"github.com/burl-dev/burl/pkg/workflow"
)

// bucketOf is the bucket of a task file's path: its folder, or DONE for a
// file in a DONE month shard.
func bucketOf(p string) string {
	dir := filepath.Dir(p)
	if workflow.IsDoneShard(filepath.Base(dir)) && filepath.Base(filepath.Dir(dir)) == string(workflow.Done) {
		return string(workflow.Done)
	}
	return filepath.Base(dir)
}

func (c *checker) duplicate(id string, es []workflow.Entry) {
	var where []string
	for _, e := range es {
		where = append(where, c.w.Rel(e.Path))
	}
	f := Finding{Kind: DuplicateTask, Task: strp(id), Path: strings.Join(where, ", ")}
	keep, why := c.survivor(es)
	if keep == nil {
		c.fileTrouble[id] = true
		f.Message = fmt.Sprintf("%s is in %d buckets: %s; %s", id, len(es), f.Path, why)
		f.Fix = fmt.Sprintf("keep the right copy and delete the others by hand (git -C %s rm %sFILE), then git burl doctor", c.w.Rel(c.w.Repo.Worktree), c.sparseOpt())
		c.add(f)
		return
	}
	f.Message = fmt.Sprintf("%s is in %d buckets: %s (%s, as an interrupted copy+delete move leaves it)", id, len(es), f.Path, why)
	f.Fix = fmt.Sprintf("%s keeps %s and deletes the other copy", repairCmd, c.w.Rel(keep.Path))
	f.Repairable = true
	f.repair = func() (*change, error) {
		ch := &change{details: map[string]any{"kept": c.w.Rel(keep.Path)}}
		var removed []string
		for _, e := range es {
			ch.paths = append(ch.paths, e.Path)
			if e.Path == keep.Path {
				continue
			}
			if err := os.Remove(e.Path); err != nil {
				return nil, err
			}
			removed = append(removed, c.w.Rel(e.Path))
		}
		ch.details["removed"] = removed
		// The copy kept is where the task is now, whether or not the
		// killed move got to log it.
		ch.details["moved"] = map[string]any{id: map[string]any{"to": string(keep.Bucket)}}
		ch.action = fmt.Sprintf("kept %s, deleted %s", c.w.Rel(keep.Path), strings.Join(removed, ", "))
		return ch, nil
	}
	c.add(f)
}

// survivor picks the copy of a duplicated task to keep: with identical
// copies, the one in the bucket the frontmatter fits (and git confirms);
// otherwise the only copy newer than the last workflow commit, when every
// other copy is exactly what was committed (clearly older) and the newer
// copy fits its bucket. nil, with the reason, when no copy clearly wins.
func (c *checker) survivor(es []workflow.Entry) (*workflow.Entry, string) {
	first, err := os.ReadFile(es[0].Path)
	if err != nil {
		return nil, err.Error()
	}
	identical := true
	for _, e := range es[1:] {
		data, err := os.ReadFile(e.Path)
		if err != nil {
			return nil, err.Error()
		}
		identical = identical && string(data) == string(first)
	}
	if identical {
		if es[0].Err != nil {
			return nil, "the copies are identical but malformed: " + es[0].Err.Error()
		}
		fit := fits(es[0].Task)
		for i, e := range es {
			if len(fit) == 1 && fit[0] == e.Bucket {
				if why := c.unproven(&e); why != "" {
					return nil, "the copies are identical but " + why
				}
				return &es[i], "identical copies; the frontmatter fits " + string(e.Bucket)
			}
		}
		return nil, "the copies are identical but their frontmatter fits none of their buckets alone"
	}
	var newer []int
	for i, e := range es {
		if !c.committed(e.Path) {
			newer = append(newer, i)
		}
	}
	if len(newer) != 1 {
		return nil, "the copies differ and none is clearly the newest"
	}
	n := &es[newer[0]]
	if n.Err != nil || len(violations(n.Task, n.Bucket)) > 0 {
		return nil, "the copies differ and the newest does not fit its bucket " + bucketOf(n.Path)
	}
	if why := c.unproven(n); why != "" {
		return nil, "the copies differ and " + why
	}
	return n, "the other copies are the committed, older version"
}

// unproven checks git for what a task's frontmatter claims happened before
// the file reached bucket e.Bucket (claim made the branch, submit the
// submitted commit, approve the merge). It returns why not, or "".
func (c *checker) unproven(e *workflow.Entry) string {
	t := e.Task
	switch e.Bucket {
	case workflow.Doing:
		if _, ok := c.branches[t.Branch()]; !ok {
			return "its branch " + t.Branch() + " does not exist"
		}
	case workflow.QA:
		tip, ok := c.branches[t.Branch()]
		if !ok {
			return "its branch " + t.Branch() + " does not exist"
		}
		sub := t.Str(task.KeySubmittedSHA)
		if in, _ := c.g.Test("merge-base", "--is-ancestor", sub, tip); !in {
			return "submitted_sha " + sub + " is not on its branch " + t.Branch()
		}
	case workflow.Done:
		if in, _ := integrate.WorkInMain(c.g, c.w.Config.MainBranch, t.BaseSHA(), t.Str(task.KeySubmittedSHA)); !in {
			return "its commits are not in " + c.w.Config.MainBranch
		}
	}
	return ""
}

// mismatch is a task whose frontmatter breaks its bucket's rules. The
// folder is the truth (PRD 7.2) unless the metadata proves a later step
// completed: every transition writes the metadata after its git work and
// before it moves the file, so a file with uncommitted changes whose
// frontmatter fits exactly one other bucket, one transition away, with git
// confirming that transition's work, was left by a command killed between
// write and move. Only then does repair finish the move; any other
// mismatch (a committed one was made by hand) is reported.
func (c *checker) mismatch(e workflow.Entry, vs []string) {
	id := e.ID
	f := Finding{Kind: BucketMismatch, Task: strp(id), Path: c.w.Rel(e.Path)}
	broken := fmt.Sprintf("%s is in %s but its frontmatter breaks %s's rules (%s)", id, e.Bucket, e.Bucket, strings.Join(vs, ", "))
	manual := fmt.Sprintf("the folder wins: make the frontmatter of %s fit %s (see burl-task(5)), or move the file to the bucket it fits with git -C %s mv%s, and commit",
		f.Path, e.Bucket, c.w.Rel(c.w.Repo.Worktree), strings.TrimSuffix(" "+c.sparseOpt(), " "))
	fit := fits(e.Task)
	if len(fit) != 1 {
		c.fileTrouble[id] = true
		f.Message, f.Fix = broken, manual
		c.add(f)
		return
	}
	to := fit[0]
	verb, legal := transitions[[2]workflow.Bucket{e.Bucket, to}]
	target := e
	target.Bucket = to
	var why string
	switch {
	case !legal:
		why = fmt.Sprintf("no burl command moves a task from %s to %s", e.Bucket, to)
	case !c.w.Config.WorkflowAutoCommit:
		why = "with workflow_auto_commit off, doctor cannot tell an interrupted command from a hand edit"
	case !c.modified(e.Path):
		why = "the file is committed like this, so it was not left by an interrupted command"
	default:
		why = c.unproven(&target)
	}
	if why != "" {
		c.fileTrouble[id] = true
		f.Message = fmt.Sprintf("%s; it fits %s, but %s", broken, to, why)
		f.Fix = manual
		c.add(f)
		return
	}
	dst := c.w.DestPath(to, e.Task, filepath.Base(e.Path))
	f.Message = fmt.Sprintf("%s is in %s but its frontmatter says %s: an interrupted %s wrote it and was killed before moving the file", id, e.Bucket, to, verb)
	f.Fix = fmt.Sprintf("%s moves it to %s", repairCmd, c.w.Rel(dst))
	f.Repairable = true
	f.repair = func() (*change, error) {
		if err := moveFile(e.Path, dst); err != nil {
			return nil, err
		}
		return &change{action: fmt.Sprintf("moved %s %s → %s (finishing an interrupted %s)", id, e.Bucket, to, verb),
			paths: []string{e.Path, dst}, details: map[string]any{"from": string(e.Bucket), "to": string(to), "interrupted": verb}}, nil
	}
	c.add(f)
}
