package verb

import (
	"github.com/burl-dev/burl/pkg/trust"
	"github.com/burl-dev/burl/pkg/workflow"
)

// UntrustedConfig names the commands of config.yaml and agents.yaml not
// trusted here, for status (a task's verify is asked about when it runs),
// and whether build_command is among them. Status never fails on it.
func UntrustedConfig(w *workflow.Workflow) (names []string, build bool) {
	names = []string{}
	cmds, err := w.ConfigCommands()
	if err != nil {
		return names, false
	}
	missing, _, err := trust.Missing(w.Repo, cmds...)
	if err != nil {
		return names, false
	}
	for _, c := range missing {
		names = append(names, c.Where())
		build = build || c.Key == "build_command"
	}
	return names, build
}
