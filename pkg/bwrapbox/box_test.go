package bwrapbox

import (
	"os"
	"slices"
	"strings"
	"testing"
)

// The whole file system is read-only in a box, /tmp private; a path is
// mounted before what lies below it, whichever was named first; a hidden
// path comes last; a read-only path outside /tmp and every writable one
// is not mounted again.
func TestBoxOrdersMounts(t *testing.T) {
	root := t.TempDir()
	b := &Box{}
	b.Write(root+"/repo/wt", "worktree")
	b.Read(root+"/repo", "repository")
	b.Hide(root+"/repo/wt", "hidden")
	b.Read("/usr", "already read-only")
	if err := os.MkdirAll(root+"/repo/wt", 0o755); err != nil {
		t.Fatal(err)
	}
	args := b.Args()
	s := strings.Join(args, " ")
	if !strings.Contains(s, "--ro-bind / / --dev /dev --proc /proc --tmpfs /tmp") || !slices.Contains(args, "--unshare-net") {
		t.Fatalf("base: %q", args)
	}
	ro := strings.Index(s, "--ro-bind "+root+"/repo ")
	rw := strings.Index(s, "--bind "+root+"/repo/wt ")
	hide := strings.Index(s, "--tmpfs "+root+"/repo/wt")
	if ro < 0 || rw < ro || hide < rw {
		t.Errorf("order: %q", args)
	}
	if strings.Contains(s, "/usr") {
		t.Errorf("a read-only path outside /tmp is mounted: %q", args)
	}
	b.Network = true
	if slices.Contains(b.Args(), "--unshare-net") {
		t.Errorf("network kept, yet unshared")
	}
}

func TestStripCredentials(t *testing.T) {
	in := "[remote \"origin\"]\n\turl = https://user:ghp_SECRET@github.com/o/r.git\n\tpushurl = https://tok@example.com/x\n[http]\n\textraHeader = Authorization: Bearer SECRET\n[remote \"b\"]\n\turl = git@github.com:o/r.git\n"
	out, changed := StripCredentials([]byte(in))
	if !changed || strings.Contains(string(out), "SECRET") || strings.Contains(string(out), "tok@") {
		t.Errorf("credentials left: %s", out)
	}
	if !strings.Contains(string(out), "url = https://github.com/o/r.git") || !strings.Contains(string(out), "git@github.com:o/r.git") {
		t.Errorf("URLs broken: %s", out)
	}
}
