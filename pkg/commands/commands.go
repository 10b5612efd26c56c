// Package commands holds the commands of a workflow that burl may run, as
// package trust names them: nothing from the workflow branch runs before
// trust.Check passes them.
package commands

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/burl-dev/burl/pkg/agents"
	"github.com/burl-dev/burl/pkg/bucket"
	"github.com/burl-dev/burl/pkg/config"
	"github.com/burl-dev/burl/pkg/trust"
)

// Workflow is a workflow, for its commands.
type Workflow struct {
	Dir    string // the workflow folder (<workflow worktree>/.workflow)
	Config *config.Config
	// InBucket parses every task of one bucket, as the workflow does.
	InBucket func(b bucket.Bucket) (good []bucket.Entry, bad []bucket.Entry, err error)
}

// BuildCommands is build_command, a gate: emptied where one was trusted,
// it needs trust too (DESIGN §19).
func (w *Workflow) BuildCommands() []trust.Command {
	return []trust.Command{trust.ConfigGate(w.Dir, "build_command", w.Config.BuildCommand)}
}

// StubCommands are the lists the stub gate checks: removing patterns or
// extensions needs trust like a new command, adding them nothing.
func (w *Workflow) StubCommands() []trust.Command {
	return []trust.Command{
		trust.ConfigList(w.Dir, "stub_patterns", w.Config.StubPatterns, config.DefaultStubPatterns),
		trust.ConfigList(w.Dir, "stub_check_extensions", w.Config.StubCheckExtensions, config.DefaultStubExtensions),
	}
}

// ChecksCommand is checks: (DESIGN §21) as a gate's list: lowering it
// needs trust, judged against the default for this landing until one was
// trusted.
func (w *Workflow) ChecksCommand() trust.Command {
	return trust.ConfigList(w.Dir, "checks", trust.ChecksLevels(w.Config.CI.Checks), trust.ChecksLevels(w.Config.DefaultChecks()))
}

// Weakened are the gate inputs whose change this user has not trusted
// and that switch a gate off or make it check less (an emptied
// build_command, stub patterns or extensions removed): watch claims
// nothing while there are.
func (w *Workflow) Weakened() []trust.Command {
	out := w.StubCommands()
	if strings.TrimSpace(w.Config.BuildCommand) == "" {
		out = append(out, w.BuildCommands()...)
	}
	return out
}

// SetupCommands is worktree_setup's command, which claim runs.
func (w *Workflow) SetupCommands() []trust.Command {
	return trust.ConfigArgv(w.Dir, "worktree_setup.command", w.Config.WorktreeSetup.Command)
}

// GateBoxCommands are what of config.yaml widens the gate box (DESIGN
// §24), each trusted like a command: sandbox: none (no box), gate_network:
// true, sandbox_write.
func (w *Workflow) GateBoxCommands() []trust.Command {
	var out []trust.Command
	g := w.Config.Gate
	if g.Sandbox == "none" {
		out = append(out, trust.Config(w.Dir, "sandbox", g.Sandbox))
	}
	if g.Network {
		out = append(out, trust.Config(w.Dir, "gate_network", "true"))
	}
	if len(g.Write) > 0 {
		out = append(out, trust.ConfigArgv(w.Dir, "sandbox_write", g.Write)...)
	}
	return out
}

// NotifyCommand is one notifier's command. The place is the notify list,
// not an index in it: reordering the list needs no new trust.
func (w *Workflow) NotifyCommand(argv []string) []trust.Command {
	return trust.ConfigArgv(w.Dir, "notify.command", argv)
}

// QueueCommands is what approve --all would run now: build_command and the
// verify of every QA task; nothing when no task waits in QA. watch asks
// before it starts the queue, so that it says once what is untrusted
// rather than run a queue that refuses each round.
func (w *Workflow) QueueCommands() []trust.Command {
	qa, _, err := w.InBucket(bucket.QA)
	if err != nil || len(qa) == 0 {
		return nil
	}
	out := append(w.BuildCommands(), w.StubCommands()...)
	for _, e := range qa {
		out = append(out, trust.Verify(e.Task, e.Path)...)
	}
	return out
}

// Commands is every command the workflow holds that burl may run: those of
// ConfigCommands and the verify of every task not DONE.
func (w *Workflow) Commands() ([]trust.Command, error) {
	out, err := w.ConfigCommands()
	if err != nil {
		return nil, err
	}
	for _, b := range []bucket.Bucket{bucket.Ready, bucket.Doing, bucket.QA, bucket.Blocked, bucket.Proposed} {
		good, _, err := w.InBucket(b)
		if err != nil {
			return nil, err
		}
		for _, e := range good {
			out = append(out, trust.Verify(e.Task, e.Path)...)
		}
	}
	return out, nil
}

// ForgeCommands are the forge settings of landing: pr (DESIGN §17) and
// queue_ci: forge (§21): which CLI runs (gh, glab) and where the API token
// is sent. Pushed to the workflow branch by anyone, they are trusted like
// commands: a forge_url taken on trust would hand the token to whoever
// wrote it.
func (w *Workflow) ForgeCommands() []trust.Command {
	if w.Config.Landing != "pr" && w.Config.CI.Queue != "forge" {
		return nil
	}
	var out []trust.Command
	if w.Config.Forge != "" {
		out = append(out, trust.Config(w.Dir, "forge", w.Config.Forge))
	}
	if w.Config.ForgeURL != "" {
		out = append(out, trust.Config(w.Dir, "forge_url", w.Config.ForgeURL))
	}
	return out
}

// CILogCommands is ci_log_command (DESIGN §21), which prints a failed
// check's log where the forge serves none.
func (w *Workflow) CILogCommands() []trust.Command {
	return trust.ConfigArgv(w.Dir, "ci_log_command", w.Config.CI.LogCommand)
}

// ConfigCommands is the commands of config.yaml and agents.yaml: every
// command but the tasks' own.
func (w *Workflow) ConfigCommands() ([]trust.Command, error) {
	out := append(w.BuildCommands(), w.StubCommands()...)
	out = append(out, w.ChecksCommand())
	out = append(out, w.SetupCommands()...)
	out = append(out, w.ForgeCommands()...)
	out = append(out, w.CILogCommands()...)
	out = append(out, w.GateBoxCommands()...)
	for _, n := range w.Config.Notify {
		out = append(out, w.NotifyCommand(n.Command)...)
	}
	if p := filepath.Join(w.Dir, agents.FileName); exists(p) {
		f, err := agents.Load(p)
		if err != nil {
			return nil, err
		}
		for _, a := range f.Agents {
			out = append(out, trust.Agent(w.Dir, a)...)
		}
		out = append(out, trust.Review(w.Dir, f.Review))
		out = append(out, trust.AutoApprove(w.Dir, f.AutoApprove)...)
		out = append(out, trust.GateBox(w.Dir, f)...)
	} else {
		// A review trusted here and the file gone: a gate switched off.
		out = append(out, trust.Review(w.Dir, nil))
	}
	return out, nil
}

func exists(p string) bool {
	_, err := os.Lstat(p)
	return !errors.Is(err, fs.ErrNotExist)
}
