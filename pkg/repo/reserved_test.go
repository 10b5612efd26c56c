package repo

import "testing"

func TestReservedPath(t *testing.T) {
	res := []string{".burl", ".worktrees"}
	for p, want := range map[string]string{
		".burl/.workflow/READY/TASK-900-x.md": ".burl",
		".Burl/.workflow/x":                   ".burl",
		".burl":                               ".burl",
		".worktrees/task-1/a":                 ".worktrees",
		".GIT/hooks/pre-commit":               ".git",
		"sub/.Git/config":                     ".git",
		".burlx/a":                            "",
		"src/.burl/a":                         "",
		"src/.gitignore":                      "",
		"src/a.go":                            "",
	} {
		got, ok := ReservedPath(res, p)
		if ok != (want != "") || got != want {
			t.Errorf("ReservedPath(%q) = %q, %v; want %q", p, got, ok, want)
		}
	}
}

func TestReserved(t *testing.T) {
	r := &Repo{Root: "/r", Worktree: "/r/tools/flow"}
	got := r.Reserved()
	if len(got) != 2 || got[0] != "tools/flow" || got[1] != ".worktrees" {
		t.Fatalf("Reserved() = %q", got)
	}
}
