package task

import "testing"

func TestLastReviewRequest(t *testing.T) {
	req := "### Rejected (attempt 1) — 2026-11-24T12:00:00Z by critic@h\n\nReason: the reviewer critic@h requested changes on 1a2b3c4 (round 1 of 2): off by one\nReview summary: off by one\nReview comments:\n- src/a.go:12: use <=\n"
	tk, err := Parse([]byte("---\nid: TASK-001\ntitle: x\n---\n\n## QA Report\n\n" + req + "\n### Validate PASS — 2026-11-24T12:10:00Z by w\n\n- scope: pass\n"))
	if err != nil {
		t.Fatal(err)
	}
	if got := tk.LastReviewRequest(); got != "Review summary: off by one\nReview comments:\n- src/a.go:12: use <=" {
		t.Errorf("LastReviewRequest = %q", got)
	}
	// A later rejection for another reason: the review is history.
	tk, _ = Parse([]byte("---\nid: TASK-001\ntitle: x\n---\n\n## QA Report\n\n" + req + "\n### Rejected (attempt 2) — 2026-11-24T13:00:00Z by lead\n\nReason: build failed\n"))
	if got := tk.LastReviewRequest(); got != "" {
		t.Errorf("after another rejection: %q", got)
	}
}
