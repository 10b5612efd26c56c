package task

import (
	"strings"
	"testing"
)

func TestBodyFromAndPlaceholders(t *testing.T) {
	body := BodyFrom("Jump with space", []string{"holds space: higher", " ", "lands"})
	for _, want := range []string{"## Objective\nJump with space\n", "- [ ] holds space: higher\n- [ ] lands\n", "## QA Report\n"} {
		if !strings.Contains(body, want) {
			t.Errorf("body lacks %q:\n%s", want, body)
		}
	}
	if strings.Contains(body, "- [ ] \n") {
		t.Error("a blank criterion made a line")
	}
	stripped, found := StripPlaceholders(DefaultBody)
	if !found || strings.Contains(stripped, "Criterion 1") || strings.Contains(stripped, "Worker fills") || !strings.Contains(stripped, "## Objective") {
		t.Fatalf("StripPlaceholders(DefaultBody) = %q, %v", stripped, found)
	}
	if s, found := StripPlaceholders("## Objective\nreal words\n"); found || s != "## Objective\nreal words\n" {
		t.Fatalf("a body without placeholders changed: %q %v", s, found)
	}
}

func TestWithoutEmptySections(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"\n## Objective\n\n## Acceptance Criteria\n- [ ] jumps\n\n## Context\n\n", "\n## Acceptance Criteria\n- [ ] jumps\n\n"},
		{"## A\n\n### sub\ntext\n## B\n", "## A\n\n### sub\ntext\n"},
		{"intro\n## A\n   \n\n## B\nb\n", "intro\n## B\nb\n"},
		{"## A\nx", "## A\nx"},
	} {
		if got := WithoutEmptySections(c.in); got != c.want {
			t.Errorf("WithoutEmptySections(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

func TestReadable(t *testing.T) {
	got := Readable(DefaultBody)
	for _, bad := range []string{"Criterion 1", "Single sentence describing", "Relevant notes/links", "Worker fills", "Validator fills"} {
		if strings.Contains(got, bad) {
			t.Errorf("Readable(DefaultBody) shows the placeholder %q:\n%s", bad, got)
		}
	}
	for _, want := range []string{"## Objective\n", "## Acceptance Criteria\n(none given)\n", "## QA Report\n"} {
		if !strings.Contains(got, want) {
			t.Errorf("Readable(DefaultBody) lacks %q:\n%s", want, got)
		}
	}
	body, _ := StripPlaceholders(BodyFrom("Jump", []string{"space jumps"}))
	if got := Readable(body); got != body {
		t.Errorf("Readable changed a body with criteria and no placeholders:\n%s\nwant\n%s", got, body)
	}
}
