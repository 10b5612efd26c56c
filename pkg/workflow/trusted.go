package workflow

import (
	"github.com/burl-dev/burl/pkg/commands"
	"github.com/burl-dev/burl/pkg/trust"
)

// The commands of the workflow that burl may run are package commands';
// these names keep the workflow's callers as they were.

func (w *Workflow) commandsOf() *commands.Workflow {
	return &commands.Workflow{Dir: w.Dir, Config: w.Config, InBucket: w.InBucket}
}

// BuildCommands is build_command, a gate.
func (w *Workflow) BuildCommands() []trust.Command { return w.commandsOf().BuildCommands() }

// StubCommands are the lists the stub gate checks.
func (w *Workflow) StubCommands() []trust.Command { return w.commandsOf().StubCommands() }

// ChecksCommand is checks: as a gate's list.
func (w *Workflow) ChecksCommand() trust.Command { return w.commandsOf().ChecksCommand() }

// Weakened are the untrusted gate inputs that switch a gate off or make it
// check less.
func (w *Workflow) Weakened() []trust.Command { return w.commandsOf().Weakened() }

// SetupCommands is worktree_setup's command, which claim runs.
func (w *Workflow) SetupCommands() []trust.Command { return w.commandsOf().SetupCommands() }

// GateBoxCommands are what of config.yaml widens the gate box.
func (w *Workflow) GateBoxCommands() []trust.Command { return w.commandsOf().GateBoxCommands() }

// QueueCommands is what approve --all would run now.
func (w *Workflow) QueueCommands() []trust.Command { return w.commandsOf().QueueCommands() }

// Commands is every command the workflow holds that burl may run.
func (w *Workflow) Commands() ([]trust.Command, error) { return w.commandsOf().Commands() }

// ForgeCommands are the forge settings of landing: pr and queue_ci: forge.
func (w *Workflow) ForgeCommands() []trust.Command { return w.commandsOf().ForgeCommands() }

// CILogCommands is ci_log_command.
func (w *Workflow) CILogCommands() []trust.Command { return w.commandsOf().CILogCommands() }

// ConfigCommands is the commands of config.yaml and agents.yaml.
func (w *Workflow) ConfigCommands() ([]trust.Command, error) { return w.commandsOf().ConfigCommands() }

func (w *Workflow) notifyCommand(argv []string) []trust.Command {
	return w.commandsOf().NotifyCommand(argv)
}
