package conflict

import (
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/burl-dev/burl/internal/gittest"
	"github.com/burl-dev/burl/pkg/gitx"
)

func TestParse(t *testing.T) {
	out := []byte("0\x00t1\x00f\x00f\x00a\x00\x00" + "1\x00t2\x00\x00" + "0\x00t3\x00\x00")
	got, err := parse(out, 3)
	if err != nil {
		t.Fatal(err)
	}
	want := [][]string{{"a", "f"}, nil, {"(no single file: see git merge-tree)"}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("parse = %q, want %q", got, want)
	}
	if _, err := parse(out, 4); err == nil {
		t.Error("a short answer must be an error, not a clean merge")
	}
	if _, err := parse([]byte("2\x00t\x00\x00"), 1); err == nil {
		t.Error("an unknown status must be an error")
	}
}

func FuzzParse(f *testing.F) {
	f.Add([]byte("0\x00t\x00f\x00\x001\x00t\x00\x00"), 2)
	f.Fuzz(func(t *testing.T, out []byte, n int) {
		if n < 0 || n > 64 {
			return
		}
		res, err := parse(out, n)
		if err == nil && len(res) != n {
			t.Fatalf("parse gave %d results for %d merges", len(res), n)
		}
		for _, files := range res {
			if files != nil && len(files) == 0 {
				t.Fatal("a conflict with no file would read as clean")
			}
		}
	})
}

// Real merges: two tasks editing the same line conflict with each other;
// one editing a line main changed since conflicts with main; a task on
// other files conflicts with nobody.
func TestPredict(t *testing.T) {
	dir := gittest.NewRepo(t)
	write := func(name, content string) {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	commit := func(msg string) string {
		gittest.Git(t, dir, "add", "-A")
		gittest.Git(t, dir, "commit", "-q", "-m", msg)
		return gittest.Git(t, dir, "rev-parse", "HEAD")
	}
	write("x.go", "one\ntwo\nthree\n")
	write("y.go", "y\n")
	base := commit("base")
	branch := func(name, file, content string) string {
		gittest.Git(t, dir, "switch", "-q", "-c", name, base)
		write(file, content)
		return commit(name)
	}
	a := branch("a", "x.go", "ONE\ntwo\nthree\n")
	b := branch("b", "x.go", "uno\ntwo\nthree\n")
	c := branch("c", "z.go", "z\n")
	d := branch("d", "y.go", "why\n")
	gittest.Git(t, dir, "switch", "-q", "-c", "m", base)
	write("y.go", "main's y\n")
	m := commit("main")

	got, err := Predict(gitx.In(dir), m, []Tip{{"TASK-001", a}, {"TASK-002", b}, {"TASK-003", c}, {"TASK-004", d}})
	if err != nil {
		t.Fatal(err)
	}
	want := []Pair{{A: "TASK-004", B: Main, Files: []string{"y.go"}}, {A: "TASK-001", B: "TASK-002", Files: []string{"x.go"}}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("Predict = %+v, want %+v", got, want)
	}
	if refs := gittest.Git(t, dir, "for-each-ref", "--format=%(refname)"); refs != "refs/heads/a\nrefs/heads/b\nrefs/heads/c\nrefs/heads/d\nrefs/heads/m\nrefs/heads/main" {
		t.Errorf("refs changed: %s", refs)
	}
	if _, err := Predict(gitx.In(dir), m, []Tip{{"TASK-001", "--output=/tmp/x"}}); err == nil {
		t.Error("a non-id head must be refused")
	}
}

// The second prediction of the same commits runs no git at all.
func TestCachedRunsEachMergeOnce(t *testing.T) {
	dir := gittest.NewRepo(t)
	gittest.Git(t, dir, "commit", "-q", "--allow-empty", "-m", "two")
	m := gittest.Git(t, dir, "rev-parse", "HEAD")
	a := gittest.Git(t, dir, "rev-parse", "HEAD~1")
	file := filepath.Join(t.TempDir(), "conflicts.cache")
	tips := []Tip{{"TASK-001", a}}
	if _, err := Cached(gitx.In(dir), file, m, tips); err != nil {
		t.Fatal(err)
	}
	if _, err := Cached(gitx.In(filepath.Join(dir, "gone")), file, m, tips); err != nil {
		t.Fatalf("a cached prediction ran git: %v", err)
	}
	if _, err := Cached(gitx.In(filepath.Join(dir, "gone")), file, m, []Tip{{"TASK-001", m}}); err == nil {
		t.Fatal("a new pair must be merged, not guessed")
	}
}
