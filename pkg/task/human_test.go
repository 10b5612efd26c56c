package task

import (
	"strings"
	"testing"
)

func TestReplaceSectionKeepsTheOthers(t *testing.T) {
	tk, err := Parse([]byte("---\nid: TASK-001\n---\n\n## Objective\nold\n\n## Acceptance Criteria\n- [ ] a\n\n## QA Report\nkept\n"))
	if err != nil {
		t.Fatal(err)
	}
	tk.ReplaceSection("Objective", "new text")
	tk.ReplaceSection("Acceptance Criteria", "- [ ] b\n- [ ] c")
	want := "\n## Objective\nnew text\n\n## Acceptance Criteria\n- [ ] b\n- [ ] c\n\n## QA Report\nkept\n"
	if got := tk.Body(); got != want {
		t.Fatalf("body:\n%q\nwant\n%q", got, want)
	}
	tk.ReplaceSection("Context", "added")
	if !strings.HasSuffix(tk.Body(), "## Context\n\nadded\n") {
		t.Fatalf("a missing section is appended: %q", tk.Body())
	}
}

func TestSetBlockedKeepsTheWholeAndASummary(t *testing.T) {
	tk, _ := Parse([]byte("---\nid: TASK-001\n---\n"))
	tk.SetBlocked("first line says it\nsecond line")
	if tk.Str(KeyBlockedReason) != "first line says it second line" || tk.BlockedSummary() != "first line says it" {
		t.Fatalf("reason %q summary %q", tk.Str(KeyBlockedReason), tk.BlockedSummary())
	}
	tk.ClearBlocked()
	if tk.Str(KeyBlockedReason) != "" || tk.Str(KeyBlockedSummary) != "" {
		t.Fatal("ClearBlocked left a value")
	}
}
