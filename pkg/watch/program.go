package watch

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

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
	prog, why := s.program(a)
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

// program is agent a's program and why it cannot start ("" when it can),
// looked up as the run will: on the PATH of the agent's environment (its
// env: PATH, else watch's own), in the file system the sandbox shows (the
// machine's, read-only). A program named relative to the task's worktree,
// or by a placeholder, is known only at the run.
func (s *supervisor) program(a agents.Agent) (string, string) {
	if len(a.Command) == 0 {
		return "", ""
	}
	prog := a.Command[0]
	if strings.Contains(prog, "{") || strings.Contains(prog, "/") && !filepath.IsAbs(prog) {
		return prog, ""
	}
	fix := "install it"
	if a.Preset != "" {
		fix = fmt.Sprintf("install it (%s)", agents.Install(a.Preset))
	}
	if filepath.IsAbs(prog) {
		if err := executable(prog); err != nil {
			return prog, fmt.Sprintf("its program %s cannot start: %v; %s or correct command: in agents.yaml", prog, err, fix)
		}
		return prog, ""
	}
	path, where := os.Getenv("PATH"), "watch's PATH"
	if p, ok := a.Env["PATH"]; ok {
		path, where = p, fmt.Sprintf("the PATH its env: sets (%s)", p)
	}
	var unusable []string
	for _, dir := range filepath.SplitList(path) {
		if !filepath.IsAbs(dir) {
			continue // relative to the worktree: not where a program is looked for
		}
		p := filepath.Join(dir, prog)
		err := executable(p)
		if err == nil {
			return prog, ""
		}
		if !errors.Is(err, os.ErrNotExist) {
			unusable = append(unusable, fmt.Sprintf("%s is %v", p, err))
		}
	}
	also := ""
	if len(unusable) > 0 {
		also = " (" + strings.Join(unusable, ", ") + ")"
	}
	return prog, fmt.Sprintf("its program %s is not on %s%s; %s or start watch with it on PATH; looked for again every round",
		prog, where, also, fix)
}

// executable is nil when p is a file someone may execute.
func executable(p string) error {
	st, err := os.Stat(p)
	switch {
	case errors.Is(err, os.ErrNotExist):
		return fmt.Errorf("no such file: %w", os.ErrNotExist)
	case err != nil:
		return err
	case st.IsDir():
		return errors.New("a directory")
	case st.Mode()&0o111 == 0:
		return errors.New("not executable")
	}
	return nil
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
