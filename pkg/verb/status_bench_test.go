package verb_test

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime/debug"
	"strings"
	"testing"
	"time"

	"github.com/burl-dev/burl/internal/gittest"
	"github.com/burl-dev/burl/pkg/catalog"
	"github.com/burl-dev/burl/pkg/cli"
	"github.com/burl-dev/burl/pkg/task"
	"github.com/burl-dev/burl/pkg/workflow"
)

// runVerb is Main with explicit streams.
func runVerb(ctx *cli.Context, name string, args []string) int {
	v, _ := catalog.Find(name)
	return cli.Exec(ctx, name, v.Usage, v.Summary, constructors[name](), args)
}

// benchVerb runs verb in dir as the binary would, discarding its output.
func benchVerb(tb testing.TB, dir, name string, args ...string) {
	tb.Helper()
	var errOut bytes.Buffer
	ctx := &cli.Context{Stdout: io.Discard, Stderr: &errOut, Stdin: strings.NewReader(""), Dir: dir}
	if code := runVerb(ctx, name, args); code != 0 {
		tb.Fatalf("git burl %s: exit %d: %s", name, code, errOut.String())
	}
}

// benchRepo is a repository with burl initialised and n READY tasks
// committed on the workflow branch, written directly (as many `add`s
// would, minus the commits).
func benchRepo(tb testing.TB, n int) string {
	return benchRepoIn(tb, n, func(int) string { return "READY" })
}

// mixed spreads tasks over the buckets as make bench does, like a
// long-lived project: most of them DONE.
func mixed(i int) string {
	switch r := i % 100; {
	case r < 70:
		return "DONE"
	case r < 90:
		return "READY"
	case r < 95:
		return "QA"
	case r < 98:
		return "DOING"
	}
	return "BLOCKED"
}

// benchRepoIn is benchRepo with task i in bucket(i).
func benchRepoIn(tb testing.TB, n int, bucket func(int) string) string {
	tb.Helper()
	dir := gittest.NewRepo(tb)
	benchVerb(tb, dir, "init")
	wf := filepath.Join(dir, ".burl", ".workflow")
	for i := 1; i <= n; i++ {
		id := task.FormatID(i)
		t := task.New(task.Spec{ID: id, Title: fmt.Sprintf("Feature %d", i), Priority: task.Priorities[i%4],
			Created: time.Unix(1700000000+int64(i), 0), Affects: []string{fmt.Sprintf("src/f%d.go", i)}})
		if err := os.WriteFile(filepath.Join(wf, bucket(i), task.FileName(id, "feature")), t.Bytes(), 0o644); err != nil {
			tb.Fatal(err)
		}
	}
	gittest.Git(tb, filepath.Dir(wf), "add", "-A")
	gittest.Git(tb, filepath.Dir(wf), "commit", "-q", "-m", "tasks")
	// A folder changed within the last seconds has its DONE count read
	// again on every run (DoneCounts), as files written this instant are
	// not cached yet (Summaries): date the folders as a long-lived
	// workflow's, and let the clock pass the files' ctime.
	old := time.Now().Add(-time.Hour)
	for _, b := range workflow.Buckets {
		if err := os.Chtimes(filepath.Join(wf, string(b)), old, old); err != nil {
			tb.Fatal(err)
		}
	}
	time.Sleep(30 * time.Millisecond)
	return dir
}

// BenchmarkStatus is `git burl status` in process over 10,000 tasks, with
// the status cache warm (the agent loop's case): all READY, and spread
// over the buckets as make bench does, under the binary's soft memory
// limit (cli.Main), against which the GC works when much is live at once.
func BenchmarkStatus(b *testing.B) {
	defer debug.SetMemoryLimit(debug.SetMemoryLimit(20 << 20))
	for _, repo := range []struct {
		name   string
		bucket func(int) string
	}{{"ready", func(int) string { return "READY" }}, {"mixed", mixed}} {
		dir := benchRepoIn(b, 10000, repo.bucket)
		for _, args := range [][]string{nil, {"--json"}, {"--json", "--open"}} {
			b.Run(strings.Join(append([]string{repo.name, "status"}, args...), " "), func(b *testing.B) {
				benchVerb(b, dir, "status", args...)
				b.ReportAllocs()
				b.ResetTimer()
				for range b.N {
					benchVerb(b, dir, "status", args...)
				}
			})
		}
	}
}
