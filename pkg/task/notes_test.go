package task

import (
	"reflect"
	"testing"
)

func TestNotesReadRejectionsAndUnblocksApart(t *testing.T) {
	tk, err := Parse([]byte("---\nid: TASK-001\ntitle: x\n---\n\n## QA Report\n\n" +
		"### Rejected (attempt 1) — 2026-11-24T10:00:00Z by lead\n\nReason: first\n\n" +
		"### Validation PASS\n\nReason: not a rejection\n\n" +
		"### Unblocked — 2026-11-24T11:00:00Z by lead\n\nWas blocked: needs the key\n\n" +
		"### Rejected (attempt 2) — 2026-11-24T12:00:00Z by lead\n\nWas blocked: not an unblock\nReason: second\n"))
	if err != nil {
		t.Fatal(err)
	}
	want := []Note{{"Rejected (attempt 1) — 2026-11-24T10:00:00Z by lead", "first"}, {"Rejected (attempt 2) — 2026-11-24T12:00:00Z by lead", "second"}}
	if got := tk.Rejections(); !reflect.DeepEqual(got, want) {
		t.Errorf("rejections %q", got)
	}
	if got := tk.Unblocks(); !reflect.DeepEqual(got, []Note{{"Unblocked — 2026-11-24T11:00:00Z by lead", "needs the key"}}) {
		t.Errorf("unblocks %q", got)
	}
}

func TestLastFailedChecks(t *testing.T) {
	checks := "### Rejected (attempt 2) — 2026-11-24T12:00:00Z by lead\n\nReason: checks failed\n\nFailed checks:\n\n- ci/test: 1 test failed (http://ci.invalid/1)\n\n  ```\n  FAIL\n  ```\n"
	tk, err := Parse([]byte("---\nid: TASK-001\ntitle: x\n---\n\n## QA Report\n\n" + checks))
	if err != nil {
		t.Fatal(err)
	}
	if got := tk.LastFailedChecks(); got != "Failed checks:\n\n- ci/test: 1 test failed (http://ci.invalid/1)\n\n  ```\n  FAIL\n  ```" {
		t.Errorf("LastFailedChecks = %q", got)
	}
	// A later rejection for another reason: the checks are history.
	tk, _ = Parse([]byte("---\nid: TASK-001\ntitle: x\n---\n\n## QA Report\n\n" + checks + "\n### Approved — pull request #2 opened\n\n### Rejected (attempt 3) — 2026-11-24T13:00:00Z by lead\n\nReason: pull request #2 closed\n"))
	if got := tk.LastFailedChecks(); got != "" {
		t.Errorf("after another rejection: %q", got)
	}
}
