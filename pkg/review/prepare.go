package review

import (
	"os"
	"path/filepath"

	"github.com/burl-dev/burl/pkg/task"
	"github.com/burl-dev/burl/pkg/workflow"
)

// Prepare writes what the reviewer reads: the diff base..head (its
// file, and its text and paths in in), the verdict's schema, the
// disposable checkout, and the folder of the run's prompt and log.
func Prepare(w *workflow.Workflow, t *task.Task, in *Input, schema, promptPath string) error {
	patch, paths, err := Diff(w.Repo.Git, in.Base, in.Head)
	if err != nil {
		return err
	}
	in.Patch, in.Paths = patch, paths
	for _, d := range []string{filepath.Dir(in.ReviewFile), filepath.Dir(promptPath)} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			return err
		}
	}
	if err := os.WriteFile(in.DiffFile, []byte(patch), 0o644); err != nil {
		return err
	}
	if err := os.WriteFile(schema, []byte(Schema), 0o644); err != nil {
		return err
	}
	return Checkout(in.Worktree, filepath.Join(w.Repo.CommonDir, "objects"), t.Branch(), in.Head, w.Config.MainBranch, in.Base)
}
