package land

import (
	"fmt"
	"path/filepath"
	"strings"

	"github.com/burl-dev/burl/pkg/agents"
	"github.com/burl-dev/burl/pkg/faults"
	"github.com/burl-dev/burl/pkg/gitx"
	"github.com/burl-dev/burl/pkg/integrate"
	"github.com/burl-dev/burl/pkg/task"
	"github.com/burl-dev/burl/pkg/workflow"
)

// merge_strategy: squash (DESIGN §26): the task's commits, rebased onto
// main, become one commit on main whose message says which task it is and
// who did it. The task branch moves to that commit, so that whatever holds
// for a rebased branch holds for it too: main only fast-forwards, a killed
// approve's commit is still on its task branch (integrate.Main takes local
// main back off it), and RebasedFrom reads the branch's reflog back to the
// submitted commit.

// squash replaces the rebased commits a.base..HEAD of the task worktree g
// by one commit on a.base with the same tree, authored by whoever did the
// work and committed by the approver, and sets a.merged to it.
func (a *approval) squash(w *workflow.Workflow, t *task.Task, g gitx.Git) error {
	head, err := g.Run("rev-parse", "HEAD")
	if err != nil {
		return err
	}
	au, err := workAuthor(w, t)
	if err != nil {
		return err
	}
	rg := w.Repo.Git
	rg.Env = append(rg.Env[:len(rg.Env):len(rg.Env)], "GIT_AUTHOR_NAME="+au.name, "GIT_AUTHOR_EMAIL="+au.email)
	out, err := rg.RunInput([]byte(squashMessage(t, au.agent)), "commit-tree", head+"^{tree}", "-p", a.base)
	if err != nil {
		return err
	}
	sq := strings.TrimSpace(string(out))
	// A compare-and-swap: the branch is where the rebase left it.
	if _, err := g.Run("update-ref", "-m", integrate.SquashReflog+" "+t.ID(), "refs/heads/"+t.Branch(), sq, head); err != nil {
		return err
	}
	faults.CrashPoint("approve", "squash")
	a.squashed, a.rebased = true, head
	return nil
}

// squashMessage is the squash commit's message: the title and ID, the
// objective, and the trailers that name the task and who did it.
func squashMessage(t *task.Task, agent string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s (%s)\n\n", oneLineOf(t.Title()), t.ID())
	if obj, _ := task.StripPlaceholders(t.Section("Objective")); strings.TrimSpace(obj) != "" {
		b.WriteString(strings.TrimSpace(obj) + "\n\n")
	}
	fmt.Fprintf(&b, "Burl-Task: %s\n", t.ID())
	if agent != "" {
		fmt.Fprintf(&b, "Burl-Agent: %s\n", agent)
	}
	return b.String()
}

func oneLineOf(s string) string { return strings.Join(strings.Fields(s), " ") }

// author is who a squash commit names as the author of the work, and the
// Burl-Agent trailer's value.
type author struct {
	name, email, agent string
}

// workAuthor is who did t's work: the agent whose run submitted it
// (agents.yaml's author:, else its name with the approver's email), or,
// for a task claimed by a human, that human as their commits name them.
func workAuthor(w *workflow.Workflow, t *task.Task) (author, error) {
	g := w.Repo.Git
	worker := t.Str(task.KeyAssignedTo)
	if name := w.RunAgent(t, worker); name != "" {
		if f, err := agents.Load(filepath.Join(w.Dir, agents.FileName)); err == nil {
			for _, ag := range f.Agents {
				if ag.Name == name && ag.Author != "" {
					n, e := splitIdent(ag.Author)
					return author{name: n, email: e, agent: name}, nil
				}
			}
		}
		ident, err := g.Run("var", "GIT_COMMITTER_IDENT")
		if err != nil {
			return author{}, err
		}
		_, email := splitIdent(ident)
		return author{name: name, email: email, agent: name}, nil
	}
	ident, err := g.Run("log", "-1", "--format=%an <%ae>", t.Str(task.KeySubmittedSHA))
	if err != nil {
		return author{}, err
	}
	n, e := splitIdent(ident)
	if worker == "" {
		worker = n
	}
	return author{name: n, email: e, agent: worker}, nil
}

// splitIdent splits "Name <email> [date]" as git writes an identity.
func splitIdent(s string) (name, email string) {
	name, rest, _ := strings.Cut(s, "<")
	email, _, _ = strings.Cut(rest, ">")
	return strings.TrimSpace(name), strings.TrimSpace(email)
}
