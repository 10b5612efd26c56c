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

// Writes answers as bubblewrap mounts: the last mount over a path
// decides, a read-only repository inside a writable sandbox_write path
// stays read-only, a writable path inside it (.burl/ named by
// sandbox_write) is writable, hidden and unmounted paths are not, and a
// link is judged by where it leads too.
func TestBoxWrites(t *testing.T) {
	root := t.TempDir()
	for _, d := range []string{"work/repo/.burl", "work/repo/.worktrees/a", "other"} {
		if err := os.MkdirAll(root+"/"+d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink(root+"/work/repo/.worktrees/a", root+"/link"); err != nil {
		t.Fatal(err)
	}
	repo := root + "/work/repo"
	b := &Box{}
	b.Write(root+"/work", "sandbox_write")
	b.Read(repo, "repository")
	b.Write(repo+"/.worktrees/a", "worktree")
	cases := map[string]bool{
		root + "/work":             true,
		repo:                       false,
		repo + "/.burl":            false,
		repo + "/.worktrees/a":     true,
		repo + "/.worktrees/a/x/y": true,
		root + "/other":            false,
		root + "/link":             true,
		"/usr":                     false,
	}
	for p, want := range cases {
		if got := b.Writes(p); got != want {
			t.Errorf("Writes(%s) = %v, want %v", p, got, want)
		}
	}
	burl := b.Clone()
	burl.Write(repo+"/.burl", "sandbox_write: .burl")
	if !burl.Writes(repo + "/.burl") {
		t.Errorf(".burl named writable is not")
	}
	burl.Hide(repo+"/.burl", "hidden")
	if burl.Writes(repo + "/.burl") {
		t.Errorf(".burl hidden is writable")
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
