package sandbox

import (
	"encoding/json"
	"os"
	"path/filepath"
)

// ReadOnly is argv run where it may change nothing of the repository (the
// reviewer's run, DESIGN §21): bubblewrap with the confinement of every
// run (its own user and PID namespaces, no capabilities, a new session,
// death with watch), the file system as the user has it, but the
// repository (every worktree, ref and object) and spec.ReadOnly read-only
// as for every run (protect), spec.Hide and spec.Private hidden; writable
// only what burl made fresh for the run (writable: the reviewer's
// disposable checkout and its verdict's folder). The run's description
// (info, written to writable) is at the active-run file, so that burl's
// verbs inside it know they are in a watch run. It starts in
// spec.Worktree (there, the checkout).
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
	out := append(append([]string{"bwrap"}, confinement...), protect(r, spec.ReadOnly)...)
	out = append(out, "--bind", writable, writable, "--ro-bind", desc, r.ActiveRunFile())
	for _, p := range append(append([]string{}, spec.Hide...), spec.Private...) {
		out = append(out, HideArgs(p)...)
	}
	return append(append(out, "--chdir", spec.Worktree, "--"), argv...), nil
}
