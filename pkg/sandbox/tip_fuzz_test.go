package sandbox

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// FuzzReadTip: whatever a run leaves as its branch's ref and packed-refs,
// the tip read back is one object id of the repository's length (or where
// the branch was), or a refusal; never anything else.
func FuzzReadTip(f *testing.F) {
	before := strings.Repeat("a", 40)
	f.Add([]byte(strings.Repeat("b", 40)+"\n"), []byte(""), true)
	f.Add([]byte("ref: refs/heads/main\n"), []byte(""), true)
	f.Add([]byte(""), []byte("# pack-refs with: sorted \n"+strings.Repeat("c", 40)+" refs/heads/t\n"), false)
	f.Add([]byte(""), []byte(strings.Repeat("c", 41)+" refs/heads/t\n"), false)
	f.Add([]byte(strings.Repeat("B", 40)), []byte(""), true)
	f.Fuzz(func(t *testing.T, loose, packed []byte, hasLoose bool) {
		gd := t.TempDir()
		if err := os.MkdirAll(filepath.Join(gd, "refs", "heads"), 0o755); err != nil {
			t.Fatal(err)
		}
		if hasLoose {
			os.WriteFile(filepath.Join(gd, "refs", "heads", "t"), loose, 0o644)
		}
		os.WriteFile(filepath.Join(gd, "packed-refs"), packed, 0o644)
		run := &Run{Info: Info{Branch: "t", Before: before, GitDir: gd}}
		tip, err := run.readTip()
		if err != nil {
			if _, ok := err.(*Refused); !ok {
				t.Fatalf("not a refusal: %v", err)
			}
			return
		}
		if len(tip) != 40 || !isHex(tip) {
			t.Fatalf("tip %q", tip)
		}
	})
}
