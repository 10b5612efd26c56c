package workflow

import (
	"bytes"
	"encoding/hex"
	"os"
	"path/filepath"
	"strings"
)

// workflowHead is the commit the workflow branch points at, read from the
// files git keeps it in rather than by another git process, which every
// transition would pay for right after its commit. It is trusted only in
// the plain case: the workflow worktree has the workflow branch checked
// out and the branch is a loose ref (as a commit always leaves it in the
// files backend); anything else asks git.
func (w *Workflow) workflowHead() (string, error) {
	if sha, ok := w.looseHead(); ok {
		return sha, nil
	}
	return w.gitWT().Run("rev-parse", "HEAD")
}

func (w *Workflow) looseHead() (string, bool) {
	dotgit, err := os.ReadFile(filepath.Join(w.Repo.Worktree, ".git"))
	if err != nil {
		return "", false
	}
	gitdir, ok := strings.CutPrefix(strings.TrimSpace(string(dotgit)), "gitdir: ")
	if !ok {
		return "", false
	}
	if !filepath.IsAbs(gitdir) {
		gitdir = filepath.Join(w.Repo.Worktree, gitdir)
	}
	head, err := os.ReadFile(filepath.Join(gitdir, "HEAD"))
	ref := "refs/heads/" + w.Repo.Branch
	if err != nil || strings.TrimSpace(string(head)) != "ref: "+ref {
		return "", false
	}
	if _, err := os.Stat(filepath.Join(w.Repo.CommonDir, "reftable")); err == nil {
		return "", false
	}
	data, err := os.ReadFile(filepath.Join(w.Repo.CommonDir, filepath.FromSlash(ref)))
	if err != nil {
		return "", false
	}
	sha := string(bytes.TrimSpace(data))
	if n := len(sha); n != 40 && n != 64 {
		return "", false
	}
	if _, err := hex.DecodeString(sha); err != nil {
		return "", false
	}
	return sha, true
}
