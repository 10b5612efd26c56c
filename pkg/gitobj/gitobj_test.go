package gitobj

import (
	"bytes"
	"fmt"
	"strings"
	"testing"

	"github.com/burl-dev/burl/internal/gittest"
	"github.com/burl-dev/burl/pkg/gitx"
)

// The trees built here get the ids git mktree gives the
// same entries: git's order (a folder sorts as if its name ended in "/").
func TestEncodeTreeMatchesGitMktree(t *testing.T) {
	gittest.Isolate(t)
	dir := gittest.NewRepo(t)
	blob := strings.TrimSpace(gittest.Git(t, dir, "hash-object", "-w", "--stdin"))
	sub := strings.TrimSpace(gittest.Git(t, dir, "mktree"))
	ents := map[string]Entry{
		"a": {"40000", sub}, "a.b": {"100644", blob}, "a-b": {"100755", blob}, "ab": {"100644", blob}, "TASK-1.md": {"100644", blob},
	}
	var in strings.Builder
	for n, e := range ents {
		kind := "blob"
		if e.Dir() {
			kind = "tree"
		}
		fmt.Fprintf(&in, "%s %s %s\t%s\n", e.Mode, kind, e.OID, n)
	}
	out, err := gitx.In(dir).RunInput([]byte(in.String()), "mktree")
	if err != nil {
		t.Fatal(err)
	}
	want := strings.TrimSpace(string(out))
	body, err := EncodeTree(ents, len(blob)/2)
	if err != nil {
		t.Fatal(err)
	}
	if got := ID("tree", body, len(blob)/2); got != want {
		t.Fatalf("tree id %s, git mktree says %s", got, want)
	}
}

// Objects sent through Write get the ids computed here, whatever
// their size (the pack's size field takes one to several bytes), in a
// SHA-1 and in a SHA-256 repository (whose pack ends in a SHA-256).
func TestWriteObjectsIDs(t *testing.T) {
	for _, format := range []string{"sha1", "sha256"} {
		t.Run(format, func(t *testing.T) {
			gittest.Isolate(t)
			dir := t.TempDir()
			gittest.Git(t, dir, "init", "-q", "--object-format="+format, ".")
			rawLen := 20
			if format == "sha256" {
				rawLen = 32
			}
			var objs []Object
			for _, n := range []int{0, 15, 16, 2047, 2048, 300000} {
				body := bytes.Repeat([]byte("x"), n)
				objs = append(objs, New("blob", body, rawLen))
			}
			if err := Write(gitx.In(dir), objs, rawLen); err != nil {
				t.Fatal(err)
			}
			for _, o := range objs {
				out := gittest.Output(t, dir, "cat-file", "blob", o.OID)
				if !bytes.Equal(out, o.Body) {
					t.Fatalf("object %s: %d bytes back, wrote %d", o.OID, len(out), len(o.Body))
				}
			}
		})
	}
}
