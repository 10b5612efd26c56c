package trust

import (
	"path/filepath"

	"github.com/burl-dev/burl/pkg/agents"
	"github.com/burl-dev/burl/pkg/repo"
)

// Turning a gate down needs trust like a new command (DESIGN §24); until
// then burl keeps the gate as this user last trusted it.

// AutoApprove is agents.yaml's auto_approve: on, watch lands work no
// person looked at, which whoever pushed it needs this user's consent
// for; off needs nothing.
func AutoApprove(dir string, on bool) []Command {
	if !on {
		return nil
	}
	return []Command{{File: agents.FileName, Key: "auto_approve", Text: "true", Path: filepath.Join(dir, agents.FileName)}}
}

// ChecksLevels is config.yaml's checks: as the list of what it waits
// for, so that a lower level removes entries (needs trust, GateList) and
// a higher one only adds.
func ChecksLevels(level string) []string {
	switch level {
	case "all":
		return []string{"required", "all"}
	case "required":
		return []string{"required"}
	}
	return []string{}
}

// LevelOfChecks is the checks: level a ChecksLevels text stands for.
func LevelOfChecks(text string) string {
	for _, l := range []string{"all", "required"} {
		if len(Removed(jsonText(ChecksLevels(l)), text)) == 0 {
			return l
		}
	}
	return "none"
}

// Kept is the text of gate list c that holds here: c's own when trusted,
// else the one last trusted at its place (or its Base), which a pushed
// change that checks less does not lower before `git burl trust`.
func Kept(r *repo.Repo, c Command) (text string, lowered bool, err error) {
	missing, set, err := Missing(r, c)
	if err != nil || len(missing) == 0 {
		return c.Text, false, err
	}
	if rec, ok := set.Previous(Repository(r), c.Where()); ok {
		return rec.Text, true, nil
	}
	return c.Base, true, nil
}
