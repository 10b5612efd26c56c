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
