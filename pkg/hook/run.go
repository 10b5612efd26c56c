package hook

import (
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/burl-dev/burl/pkg/cli"
	"github.com/burl-dev/burl/pkg/errs"
	"github.com/burl-dev/burl/pkg/fsx"
	"github.com/burl-dev/burl/pkg/gate"
	"github.com/burl-dev/burl/pkg/gitx"
	"github.com/burl-dev/burl/pkg/integrate"
	"github.com/burl-dev/burl/pkg/taskgate"
	"github.com/burl-dev/burl/pkg/workflow"
)

// Command is `git burl hook`: what cmd/git-burl-hook runs. It lives here,
// not in pkg/verb, so that the binary every commit and push waits for
// links only what the two hooks need.
func Command() cli.Command { return &hookCmd{} }

type hookCmd struct {
	cli.JSONFlag
}

type hookOut struct {
	Hook    string   `json:"hook"`
	Checked []string `json:"checked"` // the tasks whose gates ran (and passed)
}

// Human says nothing: git shows a hook's output on every commit and push,
// and a passing check is not news.
func (hookOut) Human(io.Writer) {}

func (c *hookCmd) Run(ctx *cli.Context, args []string) (cli.Output, error) {
	switch {
	case len(args) == 2 && args[0] == "commit-msg":
		return commitMsgHook(ctx, args[1])
	case len(args) == 3 && args[0] == "pre-push":
		return prePushHook(ctx, args[1])
	}
	return nil, cli.UsageError("hook", "takes commit-msg FILE or pre-push REMOTE URL, as git passes them")
}

// commitMsgHook checks what is about to be committed on a DOING task's
// branch and adds the Burl-Task trailer. It runs on every commit of every
// branch, so anything else returns after one git call.
func commitMsgHook(ctx *cli.Context, file string) (cli.Output, error) {
	out := hookOut{Hook: "commit-msg", Checked: []string{}}
	branch := workflow.CurrentBranch(ctx.Dir)
	if branch == "" {
		// Detached: at a `rebase -i` stop (edit, reword) git still runs
		// this hook for `commit --amend`, and the commit goes to the
		// branch being rebased.
		if head, _, ok := integrate.Rebasing(gitx.In(ctx.Dir)); ok {
			branch = strings.TrimPrefix(head, "refs/heads/")
		}
	}
	id, ok := workflow.IDForBranch(branch)
	if !ok {
		return out, nil
	}
	// git runs the hook at the worktree root with GIT_INDEX_FILE set to the
	// index being committed (index.lock for `commit -a`, a temporary index
	// for `commit <paths>`), possibly as a relative path: running git here,
	// with that environment inherited, makes --cached see exactly that.
	g := gitx.In(ctx.Dir)
	// Every task commit waits for this hook: the staged diff and the
	// trailered message are started from the branch name alone, while the
	// workflow is read, and used only if the branch is a DOING task's.
	// Neither writes anything; the message is written once the gates pass.
	diff, err := gate.StartDiff(g, "--cached")
	if err != nil {
		return nil, err
	}
	var tr *Trailered
	var merr error
	done := make(chan struct{})
	go func() {
		defer close(done)
		tr, merr = AddTrailer(g, file, id)
	}()
	tasks := Tasks{Dir: ctx.Dir, Stderr: ctx.Stderr}
	w, e, err := tasks.Find(branch, workflow.Doing)
	if err != nil || e == nil {
		diff.Abandon()
		<-done
		return out, err
	}
	vs, err := taskgate.CheckDiff(w, e.Task, diff)
	<-done
	if err != nil {
		return nil, err
	}
	if len(vs) > 0 {
		return nil, taskgate.Error(w, "commit to", e.ID, vs)
	}
	if merr != nil {
		return nil, merr
	}
	msg, err := tr.Message(g, w.Repo.CommentChar)
	if err != nil {
		return nil, err
	}
	if msg != nil {
		if err := fsx.WriteFile(file, msg); err != nil {
			return nil, err
		}
	}
	out.Checked = append(out.Checked, e.ID)
	return out, nil
}

// prePushHook checks base_sha..<pushed sha> of every pushed ref that is the
// branch of a DOING or QA task, and blocks the whole push, listing every
// violation under its ref, when any fails.
func prePushHook(ctx *cli.Context, remote string) (cli.Output, error) {
	if f, ok := ctx.Stdin.(*os.File); ok && isTerminal(f) {
		return nil, errs.New(errs.User, "This should be run through git's pre-push hook: it reads the refs being pushed from standard input, as git writes them").
			WithTitle("git burl hook pre-push is not meant to be run by hand").
			WithFix("git burl hooks install, then git push")
	}
	refs, err := ParsePush(ctx.Stdin)
	if err != nil {
		return nil, errs.New(errs.User, "%v", err)
	}
	out := hookOut{Hook: "pre-push", Checked: []string{}}
	tasks := Tasks{Dir: ctx.Dir, Stderr: ctx.Stderr}
	var blocked BlockedRefs
	var reasons []string
	var fix string
	for _, r := range refs {
		if r.Deletion() {
			continue
		}
		for _, b := range r.Branches() {
			w, e, err := tasks.Find(b, workflow.Doing, workflow.QA)
			if err != nil {
				return nil, err
			}
			if e == nil {
				continue
			}
			if e.Task.BaseSHA() == "" {
				return nil, errs.New(errs.User, "%s has no base_sha, so its pushed commits cannot be checked", e.ID).WithFix("git burl doctor")
			}
			g := gitx.In(ctx.Dir)
			base := taskgate.Base(w, e.Task, g, r.LocalSHA)
			vs, err := taskgate.CheckRange(w, e.Task, g, base, r.LocalSHA)
			if err != nil {
				return nil, err
			}
			out.Checked = append(out.Checked, e.ID)
			if len(vs) > 0 {
				blocked = append(blocked, Blocked{Ref: r.LocalRef, Task: e.ID, Base: base, Head: r.LocalSHA, Violations: vs})
				var ge *errs.Error
				if errors.As(taskgate.Error(w, "push", e.ID, vs), &ge) {
					reasons = append(reasons, fmt.Sprintf("%s: %s", r.LocalRef, strings.ReplaceAll(ge.Reason, "\n", "; ")))
					fix = ge.Fix
				}
			}
			break // one task per ref
		}
	}
	if len(blocked) > 0 {
		return nil, &errs.Error{Kind: errs.Validation, Title: "Cannot push to " + remote,
			Reason: strings.Join(reasons, "\n"), Violations: blocked, Fix: fix}
	}
	return out, nil
}

// isTerminal reports a character device on stdin: a person typing, not git
// feeding ref lines through a pipe.
func isTerminal(f *os.File) bool {
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}
