package agentbox

import (
	"path/filepath"
	"strings"

	"github.com/burl-dev/burl/pkg/agents"
	"github.com/burl-dev/burl/pkg/errs"
	"github.com/burl-dev/burl/pkg/suggest"
	"github.com/burl-dev/burl/pkg/workflow"
)

// AgentCommand is what `watch --print-command` shows: the argv watch runs
// for an agent, placeholders still in it, and the environment it adds.
type AgentCommand struct {
	Agent   string            `json:"agent"`
	Preset  string            `json:"preset,omitempty"`
	Command []string          `json:"command"`
	Env     map[string]string `json:"env,omitempty"`
}

// PrintCommand resolves agent name in the workflow's agents.yaml.
func PrintCommand(dir, name string) (*AgentCommand, error) {
	w, err := workflow.Open(dir)
	if err != nil {
		return nil, err
	}
	f, err := agents.Load(filepath.Join(w.Dir, agents.FileName))
	if err != nil {
		return nil, err
	}
	var names []string
	for _, a := range f.Agents {
		if a.Name == name {
			return &AgentCommand{Agent: a.Name, Preset: a.Preset, Command: a.Command, Env: a.Env}, nil
		}
		names = append(names, a.Name)
	}
	e := errs.New(errs.User, "agents.yaml has no agent %q (agents: %s)", name, strings.Join(names, ", "))
	if s := suggest.Nearest(name, names, 3); s != "" {
		e = e.WithFix("git burl watch --print-command %s", s)
	}
	return nil, e
}

// ShellLine is argv as one line a POSIX shell would split back into it.
func ShellLine(argv []string) string {
	out := make([]string, len(argv))
	for i, a := range argv {
		out[i] = shellQuote(a)
	}
	return strings.Join(out, " ")
}

func shellQuote(s string) string {
	if s != "" && strings.Trim(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_./=:@%+,") == "" {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
