// Package taskbranch tells the task a branch belongs to from the branch's
// name, and the branch checked out in a folder, without reading a task
// file: hooks ask on every commit.
package taskbranch

import (
	"os"
	"path/filepath"
	"strings"

	"github.com/burl-dev/burl/pkg/gitx"
	"github.com/burl-dev/burl/pkg/task"
)

// IDForBranch derives the task ID from a task branch name (task-001-slug)
// without reading any file: hooks ask this on every commit.
func IDForBranch(branch string) (string, bool) {
	rest, ok := strings.CutPrefix(branch, "task-")
	if !ok {
		return "", false
	}
	end := 0
	for end < len(rest) && rest[end] >= '0' && rest[end] <= '9' {
		end++
	}
	if end == 0 || end < len(rest) && rest[end] != '-' {
		return "", false
	}
	id, err := task.NormalizeID(rest[:end])
	return id, err == nil
}

// CurrentBranch is the branch checked out in dir ("" when detached).
func CurrentBranch(dir string) string {
	if b, ok := headBranch(dir); ok {
		return b
	}
	b, err := gitx.In(dir).Run("symbolic-ref", "--short", "-q", "HEAD")
	if err != nil {
		return ""
	}
	return b
}

// headBranch reads HEAD itself in the plain cases (dir is a worktree root,
// or GIT_DIR names the git dir, as in a hook; HEAD names a local branch or
// a commit): the commit-msg hook asks on every commit of every branch, and
// a git process is most of what it costs there. Anything else is left to
// git (ok false).
func headBranch(dir string) (branch string, ok bool) {
	gitdir := os.Getenv("GIT_DIR")
	switch {
	case gitdir == "":
		gitdir = filepath.Join(dir, ".git")
		st, err := os.Lstat(gitdir)
		if err != nil {
			return "", false
		}
		if !st.IsDir() {
			data, err := os.ReadFile(gitdir)
			link, found := strings.CutPrefix(strings.TrimSpace(string(data)), "gitdir: ")
			if err != nil || !found {
				return "", false
			}
			gitdir = link
			if !filepath.IsAbs(gitdir) {
				gitdir = filepath.Join(dir, gitdir)
			}
		}
	case !filepath.IsAbs(gitdir):
		// git, run in dir, would read a relative GIT_DIR from there.
		gitdir = filepath.Join(dir, gitdir)
	}
	data, err := os.ReadFile(filepath.Join(gitdir, "HEAD"))
	if err != nil {
		return "", false
	}
	head := strings.TrimSpace(string(data))
	if name, found := strings.CutPrefix(head, "ref: refs/heads/"); found && name != ".invalid" {
		return name, true
	}
	if n := len(head); (n == 40 || n == 64) && strings.Trim(head, "0123456789abcdef") == "" {
		return "", true // detached
	}
	return "", false
}
