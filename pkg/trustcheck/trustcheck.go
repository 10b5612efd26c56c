// Package trustcheck is the trust store as a watch asks it, each round
// and before every run (DESIGN §16): whether an agent, the gates, the
// setup, the approve queue and auto_approve may run here now, each
// refusal said once per distinct set of untrusted texts with the command
// that trusts it.
package trustcheck

import (
	"strings"

	"github.com/burl-dev/burl/pkg/agents"
	"github.com/burl-dev/burl/pkg/trust"
	"github.com/burl-dev/burl/pkg/workflow"
)

// Say says a line of watch's output the first time its key is seen.
type Say func(key, format string, args ...any)

// Refusal is why cmds may not run here, "" when they may, said once per
// distinct set of untrusted texts.
func Refusal(say Say, w *workflow.Workflow, what string, cmds []trust.Command) string {
	ps, err := trust.Untrusted(w.Repo, cmds...)
	if err != nil {
		say("store:"+err.Error(), "%v", err)
		return err.Error()
	}
	if len(ps) == 0 {
		return ""
	}
	key := what
	for _, p := range ps {
		key += "\x00" + trust.Hash("", p.Where(), p.Text)
	}
	e := trust.Refusal(w.Repo, ps)
	say(key, "%s: %s\n  %s\nwatch: run git burl trust to trust it", what, e.Title,
		strings.ReplaceAll(strings.TrimRight(e.Reason, "\n"), "\n", "\n  "))
	return e.Title
}

// Agent reports whether agent a may be given work.
func Agent(say Say, w *workflow.Workflow, a agents.Agent) bool {
	return Refusal(say, w, "agent "+a.Name+": not claiming for it", trust.Agent(w.Dir, a)) == ""
}

// Queue reports whether the approve queue may run now over the QA
// tasks qa: build_command and their verify commands are trusted.
func Queue(say Say, w *workflow.Workflow, qa []workflow.Entry) bool {
	cmds := w.BuildCommands()
	for _, e := range qa {
		cmds = append(cmds, trust.Verify(e.Task, e.Path)...)
	}
	return Refusal(say, w, "auto_approve: not running the approve queue", cmds) == ""
}

// AutoApprove reports whether auto_approve: true may take effect:
// landing what no person looked at is a gate turned down, which needs
// this user's trust (DESIGN §24). Until then the queue stays off, as if
// auto_approve were false, and watch says once what to run.
func AutoApprove(say Say, w *workflow.Workflow, f *agents.File) bool {
	return Refusal(say, w, "auto_approve: not approving (it stays off until trusted)", trust.AutoApprove(w.Dir, f.AutoApprove)) == ""
}

// Setup reports whether claim may run worktree_setup's command.
func Setup(say Say, w *workflow.Workflow) bool {
	return Refusal(say, w, "not claiming", w.SetupCommands()) == ""
}

// Gates reports whether the gates are as strong as this user
// trusted them: a pushed change that empties build_command or removes stub
// patterns or extensions stops claims until git burl trust (DESIGN §19).
func Gates(say Say, w *workflow.Workflow) bool {
	return Refusal(say, w, "not claiming: a gate was weakened", w.Weakened()) == ""
}

// AnyAgent is watch's start: when no agent of f is trusted here, there is
// nothing it may run, and it exits 1 as any verb does.
func AnyAgent(w *workflow.Workflow, f *agents.File) error {
	var cmds []trust.Command
	for _, a := range f.Agents {
		c := trust.Agent(w.Dir, a)
		ps, err := trust.Untrusted(w.Repo, c...)
		if err != nil {
			return err
		}
		if len(ps) == 0 {
			return nil
		}
		cmds = append(cmds, c...)
	}
	if len(cmds) == 0 {
		return nil
	}
	return trust.Check(w.Repo, cmds...)
}
