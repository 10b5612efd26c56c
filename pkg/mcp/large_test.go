package mcp

import (
	"encoding/json"
	"testing"
	"unicode/utf8"
)

// quote must say what encoding/json would: any valid UTF-8 text comes
// back whole.
func FuzzQuote(f *testing.F) {
	for _, s := range []string{"", `{"ok":true,"title":"a \"b\" \\ c"}`, "tab\there\nnewline\x00\x1f", "é ✓ \u2028 <&>"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if !utf8.ValidString(s) {
			return
		}
		var back string
		if err := json.Unmarshal(quote([]byte(s)), &back); err != nil || back != s {
			t.Fatalf("quote(%q) = %s: %q, %v", s, quote([]byte(s)), back, err)
		}
	})
}
