package cli

import (
	"strings"
	"testing"
)

func TestEscape(t *testing.T) {
	for in, want := range map[string]string{
		"plain title":          "plain title",
		"x\nREADY 99 forged":   `x\nREADY 99 forged`,
		"clear\x1b[2J":         `clear\x1b[2J`,
		"tab\there":            `tab\there`,
		"c1 \u009b31m":         `c1 \u009b31m`,
		"café ✓":               "café ✓",
		"del\x7f":              `del\x7f`,
		"bidi \u202egnp.exe":   `bidi \u202egnp.exe`,
		"sep\u2028line":        `sep\u2028line`,
		"bell\a and cr\r done": `bell\x07 and cr\r done`,
	} {
		if got := Escape(in); got != want {
			t.Errorf("Escape(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestEscaperKeepsLinesDropsEscapes(t *testing.T) {
	var b strings.Builder
	_, _ = escaper{&b}.Write([]byte("line one\n\tindented \x1b[2Jend\n"))
	if got, want := b.String(), "line one\n\tindented \\x1b[2Jend\n"; got != want {
		t.Errorf("escaper wrote %q, want %q", got, want)
	}
}

func FuzzEscape(f *testing.F) {
	f.Add("x\nREADY 99\x1b[2J")
	f.Fuzz(func(t *testing.T, s string) {
		if hasControl(Escape(s), false) {
			t.Fatalf("Escape(%q) left a control character", s)
		}
	})
}
