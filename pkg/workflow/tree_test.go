package workflow

import (
	"fmt"
	"strings"
	"testing"

	"github.com/burl-dev/burl/internal/gittest"
	"github.com/burl-dev/burl/pkg/gitx"
)

// The trees commitFiles builds itself get the ids git mktree gives the
// same entries: git's order (a folder sorts as if its name ended in "/").
func TestEncodeTreeMatchesGitMktree(t *testing.T) {
	gittest.Isolate(t)
	dir := gittest.NewRepo(t)
	blob := strings.TrimSpace(gittest.Git(t, dir, "hash-object", "-w", "--stdin"))
	sub := strings.TrimSpace(gittest.Git(t, dir, "mktree"))
	ents := map[string]treeEntry{
		"a": {"40000", sub}, "a.b": {"100644", blob}, "a-b": {"100755", blob}, "ab": {"100644", blob}, "TASK-1.md": {"100644", blob},
	}
	var in strings.Builder
	for n, e := range ents {
		kind := "blob"
		if e.mode == "40000" {
			kind = "tree"
		}
		fmt.Fprintf(&in, "%s %s %s\t%s\n", e.mode, kind, e.oid, n)
	}
	out, err := gitx.In(dir).RunInput([]byte(in.String()), "mktree")
	if err != nil {
		t.Fatal(err)
	}
	want := strings.TrimSpace(string(out))
	body, err := encodeTree(ents, len(blob)/2)
	if err != nil {
		t.Fatal(err)
	}
	if got := objectID("tree", body, len(blob)/2); got != want {
		t.Fatalf("tree id %s, git mktree says %s", got, want)
	}
}
