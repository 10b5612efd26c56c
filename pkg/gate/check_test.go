package gate

import (
	"bytes"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"sort"
	"testing"
)

// TestScanDiffChangesMatchNameStatus pins the scope gate's single-pass
// input: the files ScanDiff reads off a -U0 patch must be exactly what
// `git diff --name-status -z -M` reports for the same range, for every kind
// of change, including names git has to quote.
func TestScanDiffChangesMatchNameStatus(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("file names with quotes and newlines")
	}
	g := newGitRepo(t)
	g.write("src/player/jump.rs", "fn jump() {}\n")
	g.write("src/enemy/ai.rs", "fn think() {}\nfn act() {}\nfn rest() {}\n")
	g.write("src/net/old.rs", "fn old() {}\n")
	g.write("keep/sp ace.rs", "x\n")
	g.write("bin/img.png", "\x00\x01binary")
	g.write("bin/gone.png", "\x00\x03binary")
	g.write("tool.sh", "echo hi\n")
	g.write("same.txt", "one\ntwo\nthree\nfour\n")
	base := g.commit("base")

	g.write("src/player/jump.rs", "fn jump() { fly() }\n")
	g.write("src/player/new \"q\"\nline.rs", "new\n")
	g.write("src/player/dïr/ñew file.rs", "new\n")
	g.git("mv", "src/enemy/ai.rs", "src/player/ai.rs")
	g.git("rm", "-q", "src/net/old.rs", "bin/gone.png")
	g.git("mv", "keep/sp ace.rs", "keep/sp ace 2.rs")
	if err := os.MkdirAll(filepath.Join(g.dir, "moved"), 0o755); err != nil {
		t.Fatal(err)
	}
	g.git("mv", "same.txt", "moved/same.txt")
	g.write("bin/img.png", "\x00\x02changed")
	g.write("bin/new.png", "\x00\x04new")
	if err := os.Chmod(filepath.Join(g.dir, "tool.sh"), 0o755); err != nil {
		t.Fatal(err)
	}
	head := g.commit("work")

	ns, err := ParseNameStatus(bytes.NewReader(g.git("diff", "--name-status", "-z", "-M", base+".."+head)))
	if err != nil {
		t.Fatal(err)
	}
	patch := g.git("-c", "core.quotePath=true", "diff", "--no-color", "--no-ext-diff", "-M", "-U0", "--no-textconv",
		"--src-prefix=a/", "--dst-prefix=b/", base+".."+head)
	_, changes, err := (&StubScanner{}).ScanDiff(bytes.NewReader(patch))
	if err != nil {
		t.Fatal(err)
	}
	norm := func(cs []Change) []Change {
		out := append([]Change(nil), cs...)
		for i := range out {
			if out[i].Status == 'T' {
				out[i].Status = 'M' // a type change is a modification to the scope gate
			}
		}
		sort.Slice(out, func(i, j int) bool { return out[i].Path < out[j].Path })
		return out
	}
	if got, want := norm(changes), norm(ns); !reflect.DeepEqual(got, want) {
		t.Fatalf("ScanDiff changes differ from --name-status:\ngot  %q\nwant %q", got, want)
	}
	if len(ns) != 11 {
		t.Fatalf("the fixture should produce 11 changes, got %d: %q", len(ns), ns)
	}
}
