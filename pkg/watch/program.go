package watch

import (
	"sort"

	"github.com/burl-dev/burl/pkg/agentbox"
	"github.com/burl-dev/burl/pkg/agents"
	"github.com/burl-dev/burl/pkg/stack"
	"github.com/burl-dev/burl/pkg/workflow"
)

// CannotStart is an agent whose program cannot start on this machine, as
// --json reports it: watch claims nothing for it (DESIGN §20). Tasks are
// the READY tasks it would have claimed, left undone for it.
type CannotStart struct {
	Agent   string   `json:"agent"`
	Program string   `json:"program"`
	Reason  string   `json:"reason"`
	Tasks   []string `json:"tasks"`
	tags    []string // the agent's, for Tasks
}

// canStart checks, every round, that agent a's program can start here:
// found on the PATH its runs get, a file, executable. An agent that
// cannot start is not claimed for, rather than found out by a task
// blocked after runs that never ran; it is said once, and said again
// when it can start.
func (s *supervisor) canStart(a agents.Agent) bool {
	prog, why := agentbox.Program(a)
	s.mu.Lock()
	if s.missing == nil {
		s.missing = map[string]CannotStart{}
	}
	was, had := s.missing[a.Name]
	if why == "" {
		delete(s.missing, a.Name)
	} else {
		s.missing[a.Name] = CannotStart{Agent: a.Name, Program: prog, Reason: why, tags: a.Tags}
	}
	s.mu.Unlock()
	switch {
	case why != "" && (!had || was.Reason != why):
		s.logf("agent %s: not claiming for it: %s", a.Name, why)
	case why == "" && had:
		s.logf("agent %s: its program %s can start now; claiming for it", a.Name, prog)
	}
	return why == ""
}

// cannotStart lists the agents that could not start at the end, by name,
// each with the READY work it would have claimed (w nil: none read).
func (s *supervisor) cannotStart(w *workflow.Workflow) []CannotStart {
	s.mu.Lock()
	out := make([]CannotStart, 0, len(s.missing))
	for _, c := range s.missing {
		out = append(out, c)
	}
	s.mu.Unlock()
	sort.Slice(out, func(i, j int) bool { return out[i].Agent < out[j].Agent })
	if len(out) == 0 || w == nil {
		return out
	}
	open, done, err := readyTasks(w)
	if err != nil {
		return out
	}
	unmet := stack.Unmet(w, done)
	for i := range out {
		out[i].Tasks = []string{}
		tags := out[i].tags
		for _, t := range open {
			if t.Held() == "" && len(unmet(t)) == 0 && (len(tags) == 0 || tagged(t, tags)) {
				out[i].Tasks = append(out[i].Tasks, t.ID())
			}
		}
	}
	return out
}

// stranded reports whether an agent that could not start left work.
func stranded(cs []CannotStart) bool {
	for _, c := range cs {
		if len(c.Tasks) > 0 {
			return true
		}
	}
	return false
}
