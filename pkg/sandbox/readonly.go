package sandbox

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"

	"github.com/burl-dev/burl/pkg/bwrapbox"
	"github.com/burl-dev/burl/pkg/osx"
	"github.com/burl-dev/burl/pkg/repo"
)

// ReadOnly is argv run where it may change nothing of the repository (the
// reviewer's run, DESIGN §21, §24): a box like every run's (repoBox), with
// writable only what burl made fresh for this run under the runs folder
// (writable: the reviewer's disposable checkout and its verdict's folder,
// which no other run's box can write). The run's description (info,
// written to writable) is at the active-run file, so that burl's verbs
// inside it know they are in a watch run. It starts in spec.Worktree
// (there, the checkout).
func ReadOnly(spec Spec, info Info, writable string, argv []string) ([]string, error) {
	r := spec.Repo
	desc := filepath.Join(writable, runJSON)
	data, _ := json.Marshal(info)
	if err := os.WriteFile(desc, append(data, '\n'), 0o644); err != nil {
		return nil, err
	}
	if err := emptyFile(r.ActiveRunFile()); err != nil {
		return nil, err
	}
	var err error
	if spec.CleanConfig, err = bwrapbox.CleanConfig(r, writable); err != nil {
		return nil, err
	}
	b := ReadOnlyBox(spec, writable)
	b.File(desc, r.ActiveRunFile(), "the run's description: burl's verbs inside know they are in a run")
	bin, err := bwrapbox.BwrapProgram()
	if err != nil {
		return nil, err
	}
	return b.Argv(bin, spec.Worktree, argv), nil
}

// ReadOnlyBox is the box ReadOnly runs in: the spec's, with the
// repository read-only and only writable (and sandbox_write) writable.
func ReadOnlyBox(spec Spec, writable string) *bwrapbox.Box {
	b := repoBox(spec)
	b.Write(writable, "the reviewer's own folder: its checkout and its verdict, in its box alone")
	return b
}

// ReviewDir makes a reviewer's own folder under the runs folder (DESIGN
// §24): named as a run's, so that a watcher that dies leaves it to the
// next one's Sweep, and writable in that reviewer's box alone.
func ReviewDir(r *repo.Repo, task string) (string, error) {
	dir := filepath.Join(r.RunsDir(), fmt.Sprintf("%s-review-%d-%d", task, os.Getpid(), runSeq.Add(1)))
	_ = os.RemoveAll(dir)
	return dir, os.MkdirAll(dir, 0o755)
}

// ReviewInfo is the description of the review run in dir, as Sweep
// reads it: this watcher's.
func ReviewInfo(task, branch, dir string) Info {
	start, _, _ := osx.ProcessStart(os.Getpid())
	return Info{Task: task, Run: filepath.Base(dir), Branch: branch, Worktree: filepath.Join(dir, "src"),
		Out: filepath.Join(dir, "out"), Sandbox: "bwrap", WatcherPID: os.Getpid(), WatcherStart: start, Boot: osx.BootID()}
}
