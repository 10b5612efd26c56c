package verb

import (
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"

	"github.com/burl-dev/burl/pkg/cli"
	"github.com/burl-dev/burl/pkg/errs"
	"github.com/burl-dev/burl/pkg/gitx"
	"github.com/burl-dev/burl/pkg/qa"
	"github.com/burl-dev/burl/pkg/stack"
	"github.com/burl-dev/burl/pkg/task"
	"github.com/burl-dev/burl/pkg/taskgate"
	"github.com/burl-dev/burl/pkg/watch"
	"github.com/burl-dev/burl/pkg/workflow"
	"github.com/burl-dev/burl/pkg/workspace"
)

// Submit is `git burl submit`: what cmd/git-burl-submit runs. Only the
// verbs a binary names are linked into it.
func Submit() cli.Command { return &submitCmd{} }

type submitCmd struct {
	cli.JSONFlag
}

type submitOut struct {
	Task    map[string]any `json:"task"`
	Commits int            `json:"commits"`
	// Pushed: push_task_branch_on_submit pushed the branch to the remote.
	Pushed bool `json:"pushed"`
	entry  workflow.Entry
	remote string
	w      *workflow.Workflow
}

func (o submitOut) Human(w io.Writer) {
	fmt.Fprintf(w, "Submitted %s: %d commit(s), head %s, DOING → QA\n", o.entry.ID, o.Commits, gitx.Short(o.entry.Task.Str(task.KeySubmittedSHA)))
	if o.Pushed {
		fmt.Fprintf(w, "Pushed %s to %s\n", o.entry.Task.Branch(), o.remote)
	}
	if _, st := nextOf(o.w, &o.entry); st.Line() != "" {
		fmt.Fprintf(w, "next: %s\n", st.Line())
	}
}

func (c *submitCmd) Run(ctx *cli.Context, args []string) (cli.Output, error) {
	w, err := open(ctx)
	if err != nil {
		return nil, err
	}
	id, err := w.TaskArgOrCurrent(args, ctx.Dir, "submit")
	if err != nil {
		return nil, err
	}
	var head string
	var commits int
	res, err := w.Run(workflow.Transition{
		Verb: "submit", ID: id, From: []workflow.Bucket{workflow.Doing}, To: workflow.QA,
		Message: "submit " + id,
		Prepare: func(tx *workflow.Tx) error {
			t := tx.Task
			dir, g, err := qa.Worktree(w, t)
			if err != nil {
				return err
			}
			dirty, _, at, err := workspace.UncommittedAt(g)
			if err != nil {
				return err
			}
			if dirty != "" {
				return errs.New(errs.User, "the worktree %s has uncommitted or untracked changes:\n%s", w.Rel(dir), indentLines(dirty)).
					WithFix("commit them (git -C %s add -A && git -C %s commit), or remove them", dir, dir)
			}
			if head = at; head == "" {
				return errs.New(errs.User, "the worktree %s has no commit checked out", w.Rel(dir)).
					WithFix("commit your work in %s first", dir)
			}
			base := taskgate.Base(w, t, g, head)
			n, err := g.Run("rev-list", "--count", "--end-of-options", base+".."+head)
			if err != nil {
				return err
			}
			if commits, _ = strconv.Atoi(n); commits == 0 {
				return errs.New(errs.User, "branch %s has no commits of its own since %s", t.Branch(), gitx.Short(base)).
					WithFix("commit your work in %s first", dir)
			}
			vs, err := taskgate.CheckRange(w, t, g, base, head)
			if err != nil {
				return err
			}
			if len(vs) > 0 {
				return taskgate.Error(w, "submit", id, vs)
			}
			return nil
		},
		Apply: func(tx *workflow.Tx) error {
			// A watcher submits only what it still holds, judged on the
			// state this transaction commits (DESIGN §15): one paused
			// past its lease may find the task taken over, or claimed
			// again under the same name by another watcher.
			if me := os.Getenv("BURL_WATCHER"); me != "" {
				if h := tx.Task.Str(task.KeyLeaseHolder); h != me || tx.Task.Str(task.KeyAssignedTo) != w.Actor {
					return errs.New(errs.Lock, "%s is no longer held by this watcher (%s): it is %s's now (lease_holder %s)", id, me,
						orNobody(tx.Task.Str(task.KeyAssignedTo)), orNobody(h)).
						WithTitle("Cannot submit %s", id).WithFix("nothing to do: its lease expired and the task was taken over; this watcher's run is void")
				}
				// The run this submit ends is logged with it (one push).
				if err := watch.FoldRunEnd(tx); err != nil {
					return err
				}
			}
			tx.Task.SetTime(task.KeySubmittedAt, tx.Now)
			tx.Task.SetStr(task.KeySubmittedSHA, head)
			tx.Details["submitted_sha"] = head
			tx.Details["commits"] = commits
			return nil
		},
	})
	if err != nil {
		return nil, err
	}
	if w.Config.Stack {
		// Tasks stacked on its earlier head follow it (DESIGN §26).
		for _, l := range stack.Resubmitted(w, id, head) {
			fmt.Fprintf(ctx.Stderr, "burl: %s\n", l)
		}
	}
	out := submitOut{Task: taskObject(w, res.Entry), Commits: commits, entry: res.Entry, remote: w.Config.Remote, w: w}
	if w.Config.PushTaskBranchOnSubmit {
		out.Pushed = pushTaskBranch(ctx, w, res.Entry)
	}
	return out, nil
}

// pushTaskBranch publishes a submitted task's branch so QA or another
// machine can take it from the remote. The submission stands either way:
// a failed push is a warning with the command that retries it.
func pushTaskBranch(ctx *cli.Context, w *workflow.Workflow, e workflow.Entry) bool {
	b, remote := e.Task.Branch(), w.Config.Remote
	if !w.HasRemote() {
		ctx.Warnf("push_task_branch_on_submit is on but this clone has no remote %q", remote)
		return false
	}
	if _, err := w.Repo.Git.Run("push", "-q", remote, "refs/heads/"+b+":refs/heads/"+b); err != nil {
		ctx.Warnf("%s is submitted, but pushing %s to %s failed: %v\n(git burl sync --push retries)", e.ID, b, remote, err)
		return false
	}
	return true
}

func indentLines(s string) string {
	return "  " + strings.ReplaceAll(strings.TrimRight(s, "\n"), "\n", "\n  ")
}

func orNobody(s string) string {
	if s == "" {
		return "nobody"
	}
	return s
}
