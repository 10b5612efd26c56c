package sandbox

import "os"

// ReadOnly is argv run where it may change nothing of the repository (the
// reviewer's run, DESIGN §21): bubblewrap with the file system as the user
// has it, but the repository (spec.Root and spec.CommonDir, so every
// worktree, ref and object) and spec.ReadOnly bound read-only, spec.Hide
// and spec.Private hidden, and writable only what burl made fresh for the
// run (writable: the reviewer's disposable checkout and its verdict's
// folder). It starts in spec.Worktree (there, the checkout) and dies with
// watch. spec.Branch and TaskLogs are not used: nothing of the task is
// writable.
func ReadOnly(spec Spec, writable string, argv []string) []string {
	out := []string{"bwrap", "--dev-bind", "/", "/", "--die-with-parent"}
	for _, p := range append([]string{spec.Root, spec.CommonDir}, spec.ReadOnly...) {
		if _, err := os.Stat(p); err == nil {
			out = append(out, "--ro-bind", p, p)
		}
	}
	out = append(out, "--bind", writable, writable)
	for _, p := range append(append([]string{}, spec.Hide...), spec.Private...) {
		out = append(out, HideArgs(p)...)
	}
	return append(append(out, "--chdir", spec.Worktree, "--"), argv...)
}
