package watch

import (
	"fmt"
	"path/filepath"

	"github.com/burl-dev/burl/pkg/agents"
	"github.com/burl-dev/burl/pkg/trust"
	"github.com/burl-dev/burl/pkg/trustcheck"
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
			if why := trustcheck.Refusal(s.sayOnce, w, "agent "+a.Name+": not claiming for it", trust.Agent(w.Dir, a)); why != "" {
				return agents.Agent{}, fmt.Sprintf("agent %s: %s (git burl trust)", name, why)
			}
			return a, ""
		}
	}
	return agents.Agent{}, fmt.Sprintf("agent %s is no longer in agents.yaml", name)
}
