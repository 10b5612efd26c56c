package landforge

import (
	"fmt"

	"github.com/burl-dev/burl/pkg/trust"
	"github.com/burl-dev/burl/pkg/workflow"
)

// TrustedChecks keeps checks: at the level this user last trusted
// (DESIGN §24): a pushed change that waits for fewer of the forge's
// checks is a gate turned down, which takes effect only after `git burl
// trust`. Until then the landing waits for what was trusted, and says so
// in one line.
func TrustedChecks(w *workflow.Workflow) error {
	kept, lowered, err := trust.Kept(w.Repo, w.ChecksCommand())
	if err != nil || !lowered {
		return err
	}
	was := w.Config.CI.Checks
	w.Config.CI.Checks = trust.LevelOfChecks(kept)
	fmt.Fprintf(w.Stderr, "burl: warning: checks: %s in config.yaml is not trusted here; landing waits for checks: %s until you run git burl trust\n", was, w.Config.CI.Checks)
	return nil
}
