package trust

import (
	"path/filepath"
	"strings"

	"github.com/burl-dev/burl/pkg/gitx"
	"github.com/burl-dev/burl/pkg/repo"
	"github.com/burl-dev/burl/pkg/task"
)

// Change is the commit on the workflow branch that last changed the file a
// command is in (for a task: any file of that task, as it moves between
// buckets).
type Change struct {
	Commit  string `json:"commit"`
	Author  string `json:"author"`
	Date    string `json:"date"`
	Subject string `json:"subject"`
	// Uncommitted: the file also has changes no commit holds yet.
	Uncommitted bool `json:"uncommitted,omitempty"`
}

// lastChange asks git for the last commit of the workflow worktree's
// branch that touched c's file; nil when there is none.
func lastChange(r *repo.Repo, c Command) *Change {
	var spec string
	switch {
	case c.Key == task.KeyVerify && !strings.HasSuffix(c.File, ".yaml"):
		spec = ":(glob).workflow/**/" + c.File + "-*.md"
	case c.Path != "":
		rel, err := filepath.Rel(r.Worktree, c.Path)
		if err != nil {
			return nil
		}
		spec = ":(literal)" + filepath.ToSlash(rel)
	default:
		return nil
	}
	g := gitx.In(r.Worktree)
	out, err := g.Run("log", "-1", "--format=%h%x00%an <%ae>%x00%ci%x00%s", "HEAD", "--", spec)
	if err != nil || out == "" {
		return nil
	}
	f := strings.SplitN(out, "\x00", 4)
	if len(f) < 4 {
		return nil
	}
	ch := &Change{Commit: f[0], Author: f[1], Date: f[2], Subject: f[3]}
	if st, err := g.Run("status", "--porcelain", "--", spec); err == nil && st != "" {
		ch.Uncommitted = true
	}
	return ch
}
