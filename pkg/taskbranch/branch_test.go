package taskbranch

import "testing"

func TestIDForBranch(t *testing.T) {
	cases := []struct {
		branch string
		id     string
		ok     bool
	}{
		{"task-001-player-jump", "TASK-001", true},
		{"task-001", "TASK-001", true},
		{"task-042-x", "TASK-042", true},
		{"task-1000-big", "TASK-1000", true},
		{"task-7-short", "TASK-007", true},
		{"task-001-2-numbers-in-slug", "TASK-001", true},
		{"main", "", false},
		{"burl", "", false},
		{"task-", "", false},
		{"task-abc", "", false},
		{"task-001x", "", false},
		{"task-000-zero", "", false},
		{"task-1234567890-too-long", "", false},
		{"TASK-001-upper", "", false},
		{"feature/task-001-x", "", false},
		{"", "", false},
	}
	for _, c := range cases {
		id, ok := IDForBranch(c.branch)
		if id != c.id || ok != c.ok {
			t.Errorf("IDForBranch(%q) = %q, %v; want %q, %v", c.branch, id, ok, c.id, c.ok)
		}
	}
}
