package workspace

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A symlink on either side leads a setup path out: in the main worktree
// it would copy a file from outside in, in the task's worktree (a link
// committed on its branch) it would write outside.
func TestStaysInRefusesSymlinksOut(t *testing.T) {
	tmp := t.TempDir()
	root, wt, out := filepath.Join(tmp, "root"), filepath.Join(tmp, "wt"), filepath.Join(tmp, "out")
	for _, d := range []string{root, wt, out, filepath.Join(root, "in")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(out, ".env"), []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := staysIn("copy", "in/.env", root, wt); err != nil {
		t.Fatalf("a plain path: %v", err)
	}
	if err := os.Symlink(filepath.Join(root, "in"), filepath.Join(root, "alias")); err != nil {
		t.Fatal(err)
	}
	if err := staysIn("copy", "alias/.env", root, wt); err != nil {
		t.Fatalf("a symlink inside the repository: %v", err)
	}
	if err := os.Symlink(out, filepath.Join(root, "conf")); err != nil {
		t.Fatal(err)
	}
	if err := staysIn("copy", "conf/.env", root, wt); err == nil || !strings.Contains(err.Error(), "leaves the repository") {
		t.Fatalf("a symlink out of the main worktree: %v", err)
	}
	if err := os.Symlink(out, filepath.Join(wt, "dest")); err != nil {
		t.Fatal(err)
	}
	if err := staysIn("copy", "dest/.env", root, wt); err == nil {
		t.Fatal("a symlink out of the task's worktree")
	}
	if err := staysIn("link", "a/../b", root, wt); err == nil {
		t.Fatal("a .. at use")
	}
}

func TestCopyTreeReplacesSymlinksItWouldWriteThrough(t *testing.T) {
	tmp := t.TempDir()
	src, dst, out := filepath.Join(tmp, "src"), filepath.Join(tmp, "dst"), filepath.Join(tmp, "out")
	for _, d := range []string{src, dst, out} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(src, "f"), []byte("new"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(out, "f"), []byte("theirs"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(out, "f"), filepath.Join(dst, "f")); err != nil {
		t.Fatal(err)
	}
	if err := copyTree(src, dst); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(filepath.Join(out, "f")); string(b) != "theirs" {
		t.Fatalf("wrote through a symlink: %q", b)
	}
	if b, _ := os.ReadFile(filepath.Join(dst, "f")); string(b) != "new" {
		t.Fatalf("not copied: %q", b)
	}
}
