package integrate

import (
	"testing"

	"github.com/burl-dev/burl/pkg/task"
)

func TestSquashMessage(t *testing.T) {
	tk, err := task.Parse([]byte("---\nid: TASK-007\ntitle: Add the  login\n  form\n---\n\n## Objective\nUsers log in.\n\n## Context\nnone\n"))
	if err != nil {
		t.Fatal(err)
	}
	want := "Add the login form (TASK-007)\n\nUsers log in.\n\nBurl-Task: TASK-007\nBurl-Agent: bot\n"
	if got := SquashMessage(tk, "bot"); got != want {
		t.Errorf("message:\n%q\nwant\n%q", got, want)
	}
	// The template's placeholder is no objective.
	tk, _ = task.Parse([]byte("---\nid: TASK-008\ntitle: X\n---\n" + task.DefaultBody))
	if got := SquashMessage(tk, "bot"); got != "X (TASK-008)\n\nBurl-Task: TASK-008\nBurl-Agent: bot\n" {
		t.Errorf("message of a task with the template's objective: %q", got)
	}
}

func TestSplitIdent(t *testing.T) {
	if n, e := splitIdent("Burl Test <test@burl.invalid> 1700000000 +0000"); n != "Burl Test" || e != "test@burl.invalid" {
		t.Errorf("splitIdent = %q, %q", n, e)
	}
}
