package fsx

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/burl-dev/burl/pkg/faults"
)

func read(t *testing.T, p string) string {
	t.Helper()
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestWriteFileCreatesAndReplaces(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "a", "b", "task.md") // parents are created
	if err := WriteFile(p, []byte("one\n")); err != nil {
		t.Fatal(err)
	}
	if got := read(t, p); got != "one\n" {
		t.Errorf("content %q", got)
	}
	if err := WriteFile(p, []byte("two\n")); err != nil {
		t.Fatal(err)
	}
	if got := read(t, p); got != "two\n" {
		t.Errorf("after replace %q", got)
	}
	// The temp file is gone: nothing but the target in the directory.
	ents, _ := os.ReadDir(filepath.Dir(p))
	if len(ents) != 1 {
		var names []string
		for _, e := range ents {
			names = append(names, e.Name())
		}
		t.Errorf("leftovers next to the file: %v", names)
	}
}

// A file burl creates gets the same permissions as any file the user
// creates (0666 minus umask), not the 0600 of a temp file: task files and
// config are read by other tools and, in shared clones, other users.
func TestWriteFileNewFileMode(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("POSIX permissions")
	}
	dir := t.TempDir()
	ref := filepath.Join(dir, "ref")
	f, err := os.Create(ref)
	if err != nil {
		t.Fatal(err)
	}
	f.Close()
	want, _ := os.Stat(ref)

	p := filepath.Join(dir, "new.md")
	if err := WriteFile(p, []byte("x")); err != nil {
		t.Fatal(err)
	}
	got, _ := os.Stat(p)
	if got.Mode().Perm() != want.Mode().Perm() {
		t.Errorf("new file mode %v, want %v (like os.Create)", got.Mode().Perm(), want.Mode().Perm())
	}

	// An existing file keeps its mode across a replace.
	if err := os.Chmod(p, 0o640); err != nil {
		t.Fatal(err)
	}
	if err := WriteFile(p, []byte("y")); err != nil {
		t.Fatal(err)
	}
	if st, _ := os.Stat(p); st.Mode().Perm() != 0o640 {
		t.Errorf("replace changed mode to %v", st.Mode().Perm())
	}
}

func TestMove(t *testing.T) {
	dir := t.TempDir()
	src := filepath.Join(dir, "READY", "TASK-001-x.md")
	dst := filepath.Join(dir, "DOING", "TASK-001-x.md")
	for _, d := range []string{filepath.Dir(src), filepath.Dir(dst)} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(src, []byte("task"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := Move(src, dst); err != nil {
		t.Fatalf("Move: %v", err)
	}
	if _, err := os.Stat(src); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("src still exists: %v", err)
	}
	if read(t, dst) != "task" {
		t.Error("dst content")
	}
}

func TestMoveRefusesExistingDst(t *testing.T) {
	dir := t.TempDir()
	src, dst := filepath.Join(dir, "src.md"), filepath.Join(dir, "dst.md")
	_ = os.WriteFile(src, []byte("new"), 0o644)
	_ = os.WriteFile(dst, []byte("precious"), 0o644)
	err := Move(src, dst)
	if err == nil || !strings.Contains(err.Error(), "already exists") {
		t.Fatalf("Move over an existing file = %v, want a refusal", err)
	}
	if read(t, dst) != "precious" || read(t, src) != "new" {
		t.Error("a refused move changed a file")
	}
}

func TestMoveMissingSrc(t *testing.T) {
	dir := t.TempDir()
	err := Move(filepath.Join(dir, "nope"), filepath.Join(dir, "dst"))
	if !errors.Is(err, os.ErrNotExist) {
		t.Errorf("Move of a missing file = %v", err)
	}
	if _, err := os.Stat(filepath.Join(dir, "dst")); !errors.Is(err, os.ErrNotExist) {
		t.Error("dst created from nothing")
	}
}

// The PRD's EXDEV fallback: copy, sync, delete, and report the degraded
// (non-atomic) move so the caller can warn.
func TestMoveCrossDeviceFallback(t *testing.T) {
	old := faults.ForceEXDEV
	faults.ForceEXDEV = true
	defer func() { faults.ForceEXDEV = old }()

	dir := t.TempDir()
	src := filepath.Join(dir, "READY", "TASK-001-x.md")
	dst := filepath.Join(dir, "QA", "TASK-001-x.md")
	_ = os.MkdirAll(filepath.Dir(src), 0o755)
	_ = os.MkdirAll(filepath.Dir(dst), 0o755)
	content := bytes.Repeat([]byte("line of a task file\r\n"), 5000)
	content = append(content, 0, 1, 2, 0xff)
	if err := os.WriteFile(src, content, 0o644); err != nil {
		t.Fatal(err)
	}
	err := Move(src, dst)
	var deg *Degraded
	if !errors.As(err, &deg) {
		t.Fatalf("Move under ForceEXDEV = %v, want *Degraded", err)
	}
	if deg.Src != src || deg.Dst != dst || !strings.Contains(deg.Error(), "git burl doctor") {
		t.Errorf("Degraded = %+v %q", deg, deg.Error())
	}
	got, err := os.ReadFile(dst)
	if err != nil || !bytes.Equal(got, content) {
		t.Fatalf("file did not arrive intact (%d bytes, %v)", len(got), err)
	}
	if _, err := os.Stat(src); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("src not deleted after copy: %v", err)
	}

	// Still refuses to overwrite on the fallback path.
	_ = os.WriteFile(src, []byte("again"), 0o644)
	if err := Move(src, dst); err == nil || errors.As(err, &deg) {
		t.Errorf("fallback move over an existing file = %v", err)
	}
	if got, _ := os.ReadFile(dst); !bytes.Equal(got, content) {
		t.Error("fallback overwrote dst")
	}
}

func TestIsTemp(t *testing.T) {
	for name, want := range map[string]bool{
		"TASK-009-feature.md2065969431": true,
		"events.ndjson12":               true,
		"2026-11-22.ndjson7":            true,
		"config.yaml99":                 true,
		".burl-mode-123":                true,
		"TASK-009-feature.md":           false,
		"TASK-009-md5.md":               false,
		"notes.md.bak":                  false,
		".burl-mode-":                   false,
		"README":                        false,
	} {
		if got := IsTemp(name); got != want {
			t.Errorf("IsTemp(%q) = %v, want %v", name, got, want)
		}
	}
}
