// Package trust is the trust store of DESIGN §16: burl runs a command whose
// text came from the workflow branch (config build_command, agents.yaml
// command and env, a task's verify, and later the forge, notify and
// worktree_setup settings) only when the user of this machine trusted that
// exact text, at that place, in that repository. Check is the one question
// every verb asks before it runs one; `git burl trust` and the verbs that
// write a command the user typed (init, add --verify) record trust.
package trust

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/burl-dev/burl/pkg/agents"
	"github.com/burl-dev/burl/pkg/config"
	"github.com/burl-dev/burl/pkg/errs"
	"github.com/burl-dev/burl/pkg/osx"
	"github.com/burl-dev/burl/pkg/repo"
	"github.com/burl-dev/burl/pkg/task"
	"github.com/burl-dev/burl/pkg/workflow"
)

// Command is one text burl would execute, and where it is used: a key of a
// file of the workflow folder, or a key of a task (by ID, which stays the
// same as the task file moves between buckets).
type Command struct {
	File string `json:"file"` // "config.yaml", "agents.yaml", or a task ID
	Key  string `json:"key"`  // "build_command", "agents.NAME.command", "verify", ...
	Text string `json:"text"` // exactly what runs; argv and env as JSON
	// Path is the file holding it now (absolute), for the commit that
	// last changed it; not part of what is trusted.
	Path string `json:"-"`
}

// Where is the place the trust of a text is bound to.
func (c Command) Where() string { return c.File + ":" + c.Key }

// Describe names the command for people: "build_command in config.yaml".
func (c Command) Describe() string {
	if strings.HasSuffix(c.File, ".yaml") {
		return c.Key + " in " + c.File
	}
	return c.Key + " of " + c.File
}

// Config is a command-valued key of config.yaml: build_command today, the
// forge, notify and worktree_setup commands as they come.
func Config(w *workflow.Workflow, key, text string) Command {
	return Command{File: workflow.ConfigName, Key: key, Text: text, Path: filepath.Join(w.Dir, workflow.ConfigName)}
}

// Notifier is the i-th (from 0) notify command of config.yaml, its place
// "notify.N.command" counted from 1 as people count the list's entries.
func Notifier(w *workflow.Workflow, i int, n config.Notifier) Command {
	argv, _ := json.Marshal(n.Command)
	return Config(w, fmt.Sprintf("notify.%d.command", i+1), string(argv))
}

// Setup is worktree_setup's command, when one is set.
func Setup(w *workflow.Workflow) []Command {
	if len(w.Config.WorktreeSetup.Command) == 0 {
		return nil
	}
	argv, _ := json.Marshal(w.Config.WorktreeSetup.Command)
	return []Command{Config(w, "worktree_setup.command", string(argv))}
}

// Agent is what watch runs for an agent of agents.yaml: its argv (before
// the {placeholders} are filled in, which burl itself supplies) and, when
// it has one, its env.
func Agent(w *workflow.Workflow, a agents.Agent) []Command {
	p := filepath.Join(w.Dir, agents.FileName)
	argv, _ := json.Marshal(a.Command)
	out := []Command{{File: agents.FileName, Key: "agents." + a.Name + ".command", Text: string(argv), Path: p}}
	if len(a.Env) > 0 {
		env, _ := json.Marshal(a.Env) // keys sorted: the same env is the same text
		out = append(out, Command{File: agents.FileName, Key: "agents." + a.Name + ".env", Text: string(env), Path: p})
	}
	return out
}

// Verify is a task's verify command, if it has one. path is the task's
// file ("" when the caller does not have it at hand: it is looked up only
// for the message about an untrusted text).
func Verify(t *task.Task, path string) []Command {
	if t == nil {
		return nil
	}
	v := t.Str(task.KeyVerify)
	if strings.TrimSpace(v) == "" {
		return nil
	}
	return []Command{{File: t.ID(), Key: task.KeyVerify, Text: v, Path: path}}
}

// Repository is the identity trust is bound to: the absolute path of the
// clone's git common directory, symbolic links resolved. Every worktree of
// a clone shares it; another clone, even of the same remote, is another
// repository that needs its own trust.
func Repository(r *repo.Repo) string {
	if p, err := filepath.EvalSymlinks(r.CommonDir); err == nil {
		return p
	}
	return r.CommonDir
}

// Pending is a command that is not trusted here, with what people need to
// decide: the text trusted at the same place before, and the commit that
// last changed the file it is in.
type Pending struct {
	Command
	Previous *string `json:"previous"` // nil: nothing was trusted there before
	Change   *Change `json:"changed_in,omitempty"`
}

// Untrusted returns those of cmds not trusted in w's repository. Empty
// texts run nothing and need no trust.
func Untrusted(w *workflow.Workflow, cmds ...Command) ([]Pending, error) {
	if len(cmds) == 0 {
		return nil, nil
	}
	st, err := DefaultStore()
	if err != nil {
		return nil, err
	}
	set, err := st.Load()
	if err != nil {
		return nil, err
	}
	id := Repository(w.Repo)
	var out []Pending
	seen := map[string]bool{}
	for _, c := range cmds {
		if strings.TrimSpace(c.Text) == "" || set.Trusted(id, c.Where(), c.Text) || seen[c.Where()] {
			continue
		}
		seen[c.Where()] = true
		p := Pending{Command: c}
		if r, ok := set.Previous(id, c.Where()); ok {
			p.Previous = &r.Text
		}
		if p.Path == "" && p.Key == task.KeyVerify {
			if found, err := w.Locate(p.File); err == nil && len(found) == 1 {
				p.Path = found[0].Path
			}
		}
		p.Change = lastChange(w, p.Path)
		out = append(out, p)
	}
	return out, nil
}

// Check is the question every verb asks before it runs commands from the
// workflow branch: nil when each was trusted here, else an exit-1 error
// that shows what changed, who changed it, and the one command to run.
func Check(w *workflow.Workflow, cmds ...Command) error {
	ps, err := Untrusted(w, cmds...)
	if err != nil || len(ps) == 0 {
		return err
	}
	return Refusal(w, ps).WithFix("git burl trust")
}

// Refusal is the error for pending commands: each with what changed and
// who changed it.
func Refusal(w *workflow.Workflow, ps []Pending) *errs.Error {
	title := "Not trusted on this machine: " + ps[0].Describe()
	if len(ps) > 1 {
		title = fmt.Sprintf("%d commands from the workflow branch are not trusted on this machine", len(ps))
	}
	var b strings.Builder
	for i, p := range ps {
		if i > 0 {
			b.WriteString("\n")
		}
		b.WriteString(p.Explain(w))
	}
	return errs.New(errs.User, "%s", strings.TrimRight(b.String(), "\n")).WithTitle("%s", title)
}

// Explain is a pending command as the error and `git burl trust` show it:
// where, who changed it last, and the text against the one trusted before.
func (p Pending) Explain(w *workflow.Workflow) string {
	var b strings.Builder
	where := p.Describe()
	if p.Path != "" {
		where = p.Key + " in " + w.Rel(p.Path)
	}
	fmt.Fprintf(&b, "%s", where)
	if p.Change != nil {
		fmt.Fprintf(&b, ", last changed in %s by %s (%s)", p.Change.Commit, p.Change.Author, p.Change.Date)
		if p.Change.Uncommitted {
			b.WriteString(" and since changed without a commit")
		}
	}
	b.WriteString(":\n")
	if p.Previous == nil {
		b.WriteString("  (nothing was trusted here before)\n")
	} else {
		for _, l := range strings.Split(*p.Previous, "\n") {
			fmt.Fprintf(&b, "  - %s\n", l)
		}
	}
	for _, l := range strings.Split(p.Text, "\n") {
		fmt.Fprintf(&b, "  + %s\n", l)
	}
	return b.String()
}

// Grant trusts cmds in w's repository.
func Grant(w *workflow.Workflow, cmds ...Command) error {
	st, err := DefaultStore()
	if err != nil {
		return err
	}
	id := Repository(w.Repo)
	var recs []Record
	for _, c := range cmds {
		if strings.TrimSpace(c.Text) != "" {
			recs = append(recs, NewRecord(id, c.Where(), c.Text))
		}
	}
	return st.Add(recs...)
}

// Implicit trusts what the user wrote on burl's own command line (add
// --verify) or what init wrote, except inside a watch run, where the
// "user" may be an agent: there nothing is trusted implicitly, and
// granted is false.
func Implicit(w *workflow.Workflow, cmds ...Command) (granted bool, err error) {
	if osx.InWatchRun() {
		return false, nil
	}
	return true, Grant(w, cmds...)
}
