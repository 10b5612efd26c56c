package trust

import (
	"path/filepath"
	"regexp"
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
// branch that changed c: the last one whose diff adds or removes a line of
// its key in its file (so a later edit of another key is not blamed), else
// the last one that touched the file; nil when there is none.
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
	args := []string{"log", "-1", "-M", "--format=%h%x00%an <%ae>%x00%ci%x00%s"}
	out := ""
	if re := keyLine(c.Key); re != "" {
		out, _ = g.Run(append(args, "-G"+re, "HEAD", "--", spec)...)
	}
	if out == "" {
		out, _ = g.Run(append(args, "HEAD", "--", spec)...)
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

// keyLine is the regular expression of a YAML line that sets the last
// part of key (build_command, command, verify), "" where a value spans
// lines of its own keys (an agent's env).
func keyLine(key string) string {
	last := key[strings.LastIndex(key, ".")+1:]
	if last == "env" {
		return ""
	}
	return `(^|[^A-Za-z0-9_])` + regexp.QuoteMeta(last) + `:`
}
