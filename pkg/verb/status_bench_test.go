package verb

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/burl-dev/burl/internal/gittest"
	"github.com/burl-dev/burl/pkg/catalog"
	"github.com/burl-dev/burl/pkg/cli"
	"github.com/burl-dev/burl/pkg/task"
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
	tb.Helper()
	dir := gittest.NewRepo(tb)
	benchVerb(tb, dir, "init")
	ready := filepath.Join(dir, ".burl", ".workflow", "READY")
	for i := 1; i <= n; i++ {
		id := task.FormatID(i)
		t := task.New(task.Spec{ID: id, Title: fmt.Sprintf("Feature %d", i), Priority: task.Priorities[i%4],
			Created: time.Unix(1700000000+int64(i), 0), Affects: []string{fmt.Sprintf("src/f%d.go", i)}})
		if err := os.WriteFile(filepath.Join(ready, task.FileName(id, "feature")), t.Bytes(), 0o644); err != nil {
			tb.Fatal(err)
		}
	}
	wf := filepath.Join(dir, ".burl")
	gittest.Git(tb, wf, "add", "-A")
	gittest.Git(tb, wf, "commit", "-q", "-m", "tasks")
	// Files written this instant are not cached yet (see Summaries).
	time.Sleep(30 * time.Millisecond)
	return dir
}

// BenchmarkStatus is `git burl status` in process over 10,000 tasks, with
// the status cache warm (the agent loop's case).
func BenchmarkStatus(b *testing.B) {
	dir := benchRepo(b, 10000)
	for _, args := range [][]string{nil, {"--json"}} {
		b.Run(strings.Join(append([]string{"status"}, args...), " "), func(b *testing.B) {
			benchVerb(b, dir, "status", args...)
			b.ResetTimer()
			for range b.N {
				benchVerb(b, dir, "status", args...)
			}
		})
	}
}
