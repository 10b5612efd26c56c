package watch

import (
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"time"

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

func TestLeaseCountsOnlyAfterTheClaim(t *testing.T) {
	now := time.Date(2026, 11, 23, 1, 0, 0, 0, time.UTC)
	live := mustTask(t, "started_at: 2026-11-23T00:00:00Z\nlease_expires: 2026-11-23T01:10:00Z\n")
	dead := mustTask(t, "started_at: 2026-11-23T00:00:00Z\nlease_expires: 2026-11-23T00:30:00Z\n")
	stale := mustTask(t, "started_at: 2026-11-23T00:40:00Z\nlease_expires: 2026-11-23T00:30:00Z\n")
	none := mustTask(t, "started_at: 2026-11-23T00:00:00Z\n")
	exp := func(tk *task.Task) bool { return Expired(tk, now, 0, "h") }
	if exp(live) || !exp(dead) || exp(stale) || exp(none) {
		t.Errorf("live %v dead %v stale %v none %v", exp(live), exp(dead), exp(stale), exp(none))
	}
}

func TestLeaseGraceGarbageAndDeadLocalHolders(t *testing.T) {
	now := time.Date(2026, 11, 23, 1, 0, 0, 0, time.UTC)
	justPast := mustTask(t, "started_at: 2026-11-23T00:00:00Z\nlease_expires: 2026-11-23T00:59:30Z\n")
	if Expired(justPast, now, time.Minute, "h") || !Expired(justPast, now, 10*time.Second, "h") {
		t.Error("lease_grace is not applied past lease_expires")
	}
	garbage := mustTask(t, "started_at: 2026-11-23T00:00:00Z\nlease_expires: next tuesday\n")
	if !Expired(garbage, now, time.Minute, "h") {
		t.Error("a lease that does not parse must count as expired")
	}
	// A pid no process has: the kernel's pid_max is below 2^22 by default.
	gone := mustTask(t, "started_at: 2026-11-23T00:00:00Z\nlease_expires: 2026-11-23T02:00:00Z\nlease_holder: bot@h#4194303\n")
	if !Expired(gone, now, time.Minute, "h") {
		t.Error("a live lease of a dead watcher on this host must count as expired")
	}
	if Expired(gone, now, time.Minute, "other") {
		t.Error("a watcher of another host is judged by its lease only")
	}
	alive := mustTask(t, "started_at: 2026-11-23T00:00:00Z\nlease_expires: 2026-11-23T02:00:00Z\nlease_holder: bot@h#"+strconv.Itoa(os.Getppid())+"\n")
	if Expired(alive, now, time.Minute, "h") {
		t.Error("a running watcher's lease expired")
	}
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
	if err := capLog(p, 8192); err != nil {
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
	if err := capLog(p, 1<<20); err != nil {
		t.Fatal(err)
	}
	if again, _ := os.ReadFile(p); string(again) != s {
		t.Fatal("a log under the cap changed")
	}
}
