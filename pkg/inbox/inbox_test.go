package inbox

import "testing"

func TestGrantCommand(t *testing.T) {
	for _, c := range []struct{ req, want string }{
		{"+ affects: base.go — I need base.go", "git burl scope TASK-001 --affects base.go --reason 'granted: I need base.go'"},
		{"+ affects_globs: lib/**; - must_not_touch: docs/* x — it's shared", "git burl scope TASK-001 --affects-glob 'lib/**' --remove 'docs/* x' --reason 'granted: it'\\''s shared'"},
		{"+ owner: me — why", "git burl show TASK-001"},
		{"no dash", "git burl show TASK-001"},
	} {
		if got := GrantCommand("TASK-001", c.req); got != c.want {
			t.Errorf("GrantCommand(%q) = %q, want %q", c.req, got, c.want)
		}
	}
}
