package osx

import "testing"

func TestShellQuote(t *testing.T) {
	for in, want := range map[string]string{"src/a.go": "src/a.go", "a b": "'a b'", "it's": `'it'\''s'`, "": "''", "$(x)": "'$(x)'"} {
		if got := ShellQuote(in); got != want {
			t.Errorf("ShellQuote(%q) = %s, want %s", in, got, want)
		}
	}
}
