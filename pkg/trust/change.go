package trust

import (
	"path/filepath"
	"strings"

	"github.com/burl-dev/burl/pkg/gitx"
	"github.com/burl-dev/burl/pkg/workflow"
)

// Change is the commit on the workflow branch that last changed the file a
// command is in.
type Change struct {
	Commit  string `json:"commit"`
	Author  string `json:"author"`
	Date    string `json:"date"`
	Subject string `json:"subject"`
	// Uncommitted: the file also has changes no commit holds yet.
	Uncommitted bool `json:"uncommitted,omitempty"`
}

// lastChange asks git for the last commit of the workflow worktree's
// branch that touched path; nil when there is none (or path is "").
func lastChange(w *workflow.Workflow, path string) *Change {
	if path == "" {
		return nil
	}
	rel, err := filepath.Rel(w.Repo.Worktree, path)
	if err != nil {
		return nil
	}
	g := gitx.In(w.Repo.Worktree)
	out, err := g.Run("log", "-1", "--format=%h%x00%an <%ae>%x00%ci%x00%s", "HEAD", "--", filepath.ToSlash(rel))
	if err != nil || out == "" {
		return nil
	}
	f := strings.SplitN(out, "\x00", 4)
	if len(f) < 4 {
		return nil
	}
	c := &Change{Commit: f[0], Author: f[1], Date: f[2], Subject: f[3]}
	if st, err := g.Run("status", "--porcelain", "--", filepath.ToSlash(rel)); err == nil && st != "" {
		c.Uncommitted = true
	}
	return c
}
