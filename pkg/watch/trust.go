package watch

import (
	"fmt"
	"path/filepath"
	"strings"

	"github.com/burl-dev/burl/pkg/agents"
	"github.com/burl-dev/burl/pkg/trust"
	"github.com/burl-dev/burl/pkg/workflow"
)

// Watch runs only commands this machine's user trusted (DESIGN §16): each
// round it reads agents.yaml again (a pull may have changed it), claims
// nothing for an agent whose command or env is not trusted, and before
// every run takes the agent as the file has it now, so that an older text
// never runs in place of a newer untrusted one.

// sayOnce logs a message the first time key is seen.
func (s *supervisor) sayOnce(key, format string, args ...any) {
	s.mu.Lock()
	seen := s.said[key]
	s.said[key] = true
	s.mu.Unlock()
	if !seen {
		s.logf(format, args...)
	}
}

// reload reads agents.yaml as this round finds it; nil when it no longer
// loads, which stops all claims (and runs) until it does.
func (s *supervisor) reload(w *workflow.Workflow) *agents.File {
	p := filepath.Join(w.Dir, agents.FileName)
	f, err := agents.Load(p)
	s.mu.Lock()
	s.w = w
	if err != nil {
		s.file, s.fileErr = nil, err.Error()
	} else {
		s.file, s.fileErr = f, ""
	}
	s.mu.Unlock()
	if err != nil {
		s.sayOnce("load:"+err.Error(), "cannot read %s: %v; claiming nothing until it is fixed", w.Rel(p), err)
	}
	return f
}

// refusal is why cmds may not run here, "" when they may, said once per
// distinct set of untrusted texts.
func (s *supervisor) refusal(w *workflow.Workflow, what string, cmds []trust.Command) string {
	ps, err := trust.Untrusted(w.Repo, cmds...)
	if err != nil {
		s.sayOnce("store:"+err.Error(), "%v", err)
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
	s.sayOnce(key, "%s: %s\n  %s\nwatch: run git burl trust to trust it", what, e.Title,
		strings.ReplaceAll(strings.TrimRight(e.Reason, "\n"), "\n", "\n  "))
	return e.Title
}

// trusted reports whether agent a may be given work.
func (s *supervisor) trusted(w *workflow.Workflow, a agents.Agent) bool {
	return s.refusal(w, "agent "+a.Name+": not claiming for it", trust.Agent(w.Dir, a)) == ""
}

// queueTrusted reports whether the approve queue may run now over the QA
// tasks qa: build_command and their verify commands are trusted.
func (s *supervisor) queueTrusted(w *workflow.Workflow, qa []workflow.Entry) bool {
	cmds := w.BuildCommands()
	for _, e := range qa {
		cmds = append(cmds, trust.Verify(e.Task, e.Path)...)
	}
	return s.refusal(w, "auto_approve: not running the approve queue", cmds) == ""
}

// autoApproveTrusted reports whether auto_approve: true may take effect:
// landing what no person looked at is a gate turned down, which needs
// this user's trust (DESIGN §24). Until then the queue stays off, as if
// auto_approve were false, and watch says once what to run.
func (s *supervisor) autoApproveTrusted(w *workflow.Workflow, f *agents.File) bool {
	return s.refusal(w, "auto_approve: not approving (it stays off until trusted)", trust.AutoApprove(w.Dir, f.AutoApprove)) == ""
}

// setupTrusted reports whether claim may run worktree_setup's command.
func (s *supervisor) setupTrusted(w *workflow.Workflow) bool {
	return s.refusal(w, "not claiming", w.SetupCommands()) == ""
}

// gatesTrusted reports whether the gates are as strong as this user
// trusted them: a pushed change that empties build_command or removes stub
// patterns or extensions stops claims until git burl trust (DESIGN §19).
func (s *supervisor) gatesTrusted(w *workflow.Workflow) bool {
	return s.refusal(w, "not claiming: a gate was weakened", w.Weakened()) == ""
}

// anyTrusted is watch's start: when no agent of agents.yaml is trusted
// here, there is nothing it may run, and it exits 1 as any verb does.
func (s *supervisor) anyTrusted(w *workflow.Workflow) error {
	var cmds []trust.Command
	for _, a := range s.file.Agents {
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

// current is agent name as agents.yaml has it now, or why it may not run.
func (s *supervisor) current(name string) (agents.Agent, string) {
	s.mu.Lock()
	f, ferr, w := s.file, s.fileErr, s.w
	s.mu.Unlock()
	if f == nil {
		return agents.Agent{}, "agents.yaml does not load: " + ferr
	}
	for _, a := range f.Agents {
		if a.Name == name {
			if why := s.refusal(w, "agent "+a.Name+": not claiming for it", trust.Agent(w.Dir, a)); why != "" {
				return agents.Agent{}, fmt.Sprintf("agent %s: %s (git burl trust)", name, why)
			}
			return a, ""
		}
	}
	return agents.Agent{}, fmt.Sprintf("agent %s is no longer in agents.yaml", name)
}
