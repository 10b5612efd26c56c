package reason

import (
	"strings"
	"testing"
	"unicode/utf8"
)

func TestCutNeverSplitsAWord(t *testing.T) {
	s := "revert the changes to those files (git checkout BASE -- FILE; the base is the task's base_sha)"
	for max := 10; max < len(s); max++ {
		got := Cut(s, max)
		if n := utf8.RuneCountInString(got); n > max {
			t.Fatalf("Cut(%d) is %d long: %q", max, n, got)
		}
		if !strings.HasSuffix(got, "…") {
			t.Fatalf("Cut(%d) = %q: a cut line must end with …", max, got)
		}
		body := strings.TrimSuffix(got, "…")
		if !strings.HasPrefix(s, body) {
			t.Fatalf("Cut(%d) = %q is not a prefix", max, got)
		}
		if next := s[len(body)]; next != ' ' && next != ',' && next != ';' && next != ':' {
			t.Fatalf("Cut(%d) = %q splits a word", max, got)
		}
	}
	if Cut(s, len(s)) != s {
		t.Fatal("a line that fits is not cut")
	}
}

func TestSummaryTakesTheFirstLineThatSaysSomething(t *testing.T) {
	full := "error: Cannot submit TASK-001\n\nReason: Scope violation: 2 files outside TASK-001's scope: a.go, b.go\n\n  ✗ a.go\nFix: ..."
	if got := Summary(full); got != "Scope violation: 2 files outside TASK-001's scope: a.go, b.go" {
		t.Fatalf("got %q", got)
	}
	long := strings.Repeat("word ", 60)
	if got := Summary(long); utf8.RuneCountInString(got) > Max || !strings.HasSuffix(got, "…") {
		t.Fatalf("got %q", got)
	}
}
