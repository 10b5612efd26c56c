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
