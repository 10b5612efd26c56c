package gateinput

import "testing"

func TestGateWordsNamesWhatAHumanRestores(t *testing.T) {
	got := gateWords(map[string]any{"affects": []string{"src/a.go", "src/b.go"}, "affects_globs": []string(nil), "verify": "make check", "depends_on": []string{}})
	if want := "affects: [src/a.go, src/b.go]; verify: make check"; got != want {
		t.Fatalf("gateWords = %q, want %q", got, want)
	}
	if got := gateWords(map[string]any{}); got != "all empty" {
		t.Fatalf("gateWords of nothing = %q", got)
	}
}
