package watch

import (
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/burl-dev/burl/pkg/task"
)

func TestExpandKeepsEachElementWhole(t *testing.T) {
	vals := map[string]string{"id": "TASK-001", "title": "a $(rm -rf /) `x` \"q\" ; {id}", "prompt_file": "/p.md"}
	got := Expand([]string{"agent", "@{prompt_file}", "--title={title}", "{id}{id}", "{unknown}"}, vals)
	want := []string{"agent", "@/p.md", "--title=a $(rm -rf /) `x` \"q\" ; {id}", "TASK-001TASK-001", "{unknown}"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got %q\nwant %q", got, want)
	}
}

func mustTask(t *testing.T, front string) *task.Task {
	t.Helper()
	tk, err := task.Parse([]byte("---\nid: TASK-001\ntitle: x\n" + front + "---\n\n## QA Report\n\n### Rejected (attempt 1) — now by a\n\nReason: first\n\n### Validation PASS\n\nReason: not a rejection\n\n### Rejected (attempt 2) — now by a\n\nReason: second\n"))
	if err != nil {
		t.Fatal(err)
	}
	return tk
}

func TestRejections(t *testing.T) {
	var got []string
	for _, n := range mustTask(t, "").Rejections() {
		got = append(got, n.Text)
	}
	if !reflect.DeepEqual(got, []string{"first", "second"}) {
		t.Errorf("got %q", got)
	}
}

func TestCapLogKeepsHeadAndTailWithAMarker(t *testing.T) {
	p := filepath.Join(t.TempDir(), "run.log")
	var b strings.Builder
	for i := 0; i < 10000; i++ {
		fmt.Fprintf(&b, "line %05d\n", i)
	}
	if err := os.WriteFile(p, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	f, err := os.OpenFile(p, os.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if err := capLog(f, 8192); err != nil {
		t.Fatal(err)
	}
	got, _ := os.ReadFile(p)
	s := string(got)
	if !strings.HasPrefix(s, "line 00000\n") || !strings.HasSuffix(s, "line 09999\n") {
		t.Fatalf("head or tail lost: %q ... %q", s[:20], s[len(s)-20:])
	}
	if !strings.Contains(s, "bytes of this run's output were cut here: log_max_bytes is 8192") {
		t.Fatal("no marker")
	}
	if len(got) > 8192+200 {
		t.Fatalf("capped log is %d bytes", len(got))
	}
	// A log under the cap is left alone.
	if err := capLog(f, 1<<20); err != nil {
		t.Fatal(err)
	}
	if again, _ := os.ReadFile(p); string(again) != s {
		t.Fatal("a log under the cap changed")
	}
}
