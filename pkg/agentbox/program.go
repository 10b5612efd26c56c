package agentbox

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/burl-dev/burl/pkg/agents"
)

// Program is agent a's program and why it cannot start ("" when it can),
// looked up as the run will: on the PATH of the agent's environment (its
// env: PATH, else watch's own), in the file system the sandbox shows (the
// machine's, read-only). A program named relative to the task's worktree,
// or by a placeholder, is known only at the run.
func Program(a agents.Agent) (string, string) {
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
