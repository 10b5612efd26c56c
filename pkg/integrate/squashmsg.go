package integrate

import (
	"fmt"
	"path/filepath"
	"strings"

	"github.com/burl-dev/burl/pkg/agents"
	"github.com/burl-dev/burl/pkg/task"
	"github.com/burl-dev/burl/pkg/workflow"
)

// What a squash landing (merge_strategy: squash, DESIGN §26) writes on its
// one commit: the message and who did the work.

// SquashMessage is the squash commit's message: the title and ID, the
// objective, and the trailers that name the task and who did it.
func SquashMessage(t *task.Task, agent string) string {
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

// Author is who a squash commit names as the author of the work, and the
// Burl-Agent trailer's value.
type Author struct {
	Name, Email, Agent string
}

// WorkAuthor is who did t's work: the agent whose run submitted it
// (agents.yaml's author:, else its name with the approver's email), or,
// for a task claimed by a human, that human as their commits name them.
func WorkAuthor(w *workflow.Workflow, t *task.Task) (Author, error) {
	g := w.Repo.Git
	worker := t.Str(task.KeyAssignedTo)
	if name := w.RunAgent(t, worker); name != "" {
		if f, err := agents.Load(filepath.Join(w.Dir, agents.FileName)); err == nil {
			for _, ag := range f.Agents {
				if ag.Name == name && ag.Author != "" {
					n, e := splitIdent(ag.Author)
					return Author{Name: n, Email: e, Agent: name}, nil
				}
			}
		}
		ident, err := g.Run("var", "GIT_COMMITTER_IDENT")
		if err != nil {
			return Author{}, err
		}
		_, email := splitIdent(ident)
		return Author{Name: name, Email: email, Agent: name}, nil
	}
	ident, err := g.Run("log", "-1", "--format=%an <%ae>", t.Str(task.KeySubmittedSHA))
	if err != nil {
		return Author{}, err
	}
	n, e := splitIdent(ident)
	if worker == "" {
		worker = n
	}
	return Author{Name: n, Email: e, Agent: worker}, nil
}

// splitIdent splits "Name <email> [date]" as git writes an identity.
func splitIdent(s string) (name, email string) {
	name, rest, _ := strings.Cut(s, "<")
	email, _, _ = strings.Cut(rest, ">")
	return strings.TrimSpace(name), strings.TrimSpace(email)
}
