package gateinput

import (
	"os"
	"path/filepath"
	"reflect"
	"testing"
	"time"

	"github.com/burl-dev/burl/internal/gittest"
	"github.com/burl-dev/burl/pkg/gitx"
)

// The walk through cat-file lists what git log lists: the commits since
// the claim that changed the task file in any bucket (a move: both
// paths), and the event shards of the commits it names.
func TestWalkHistoryIsGitLog(t *testing.T) {
	dir := gittest.NewRepo(t)
	at := time.Now().Add(-time.Hour).Truncate(time.Second)
	n := 0
	commitAll := func(msg string) {
		t.Helper()
		n++
		gittest.Git(t, dir, "add", "-A")
		when := at.Add(time.Duration(n) * time.Minute).Format(time.RFC3339)
		cmd := []string{"-c", "user.name=t", "-c", "user.email=t@t", "commit", "-q", "--allow-empty", "-m", msg}
		t.Setenv("GIT_COMMITTER_DATE", when)
		t.Setenv("GIT_AUTHOR_DATE", when)
		gittest.Git(t, dir, cmd...)
	}
	put := func(rel, content string) {
		t.Helper()
		p := filepath.Join(dir, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	mv := func(from, to string) {
		t.Helper()
		if err := os.MkdirAll(filepath.Dir(filepath.Join(dir, to)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.Rename(filepath.Join(dir, from), filepath.Join(dir, to)); err != nil {
			t.Fatal(err)
		}
	}
	const f = "TASK-001-x.md"
	put(".workflow/READY/"+f, "a\n")
	put(".workflow/READY/TASK-002-y.md", "b\n")
	commitAll("burl: add TASK-001")
	mv(".workflow/READY/"+f, ".workflow/DOING/"+f)
	put(".workflow/events/2026/01/2026-01-01.ndjson", "{}\n")
	commitAll("burl: claim TASK-001")
	put(".workflow/events/2026/01/2026-01-01.ndjson", "{}\n{}\n")
	commitAll("burl: claim TASK-002")
	put(".workflow/DOING/"+f, "a2\n")
	commitAll("by hand\nsecond line\n\nbody")
	put(".workflow/events/2026/01/2026-01-02.ndjson", "{}\n")
	put(".workflow/DOING/"+f, "a3\n")
	commitAll("burl: scope TASK-001")
	mv(".workflow/DOING/"+f, ".workflow/QA/"+f)
	commitAll("burl: submit TASK-001")
	g := gitx.In(dir)
	named := func(s string) bool { return s == "claim TASK-001" || s == "scope TASK-001" }
	for _, since := range []time.Time{at, at.Add(2 * time.Minute), at.Add(90 * time.Second), at.Add(time.Hour)} {
		walkCs, walkShards, ok := walkHistory(g, since, ".workflow", f, named)
		if !ok {
			t.Fatalf("since %s: the walk left a linear history to git", since)
		}
		logCs, logShards, err := logHistory(g, since, ".workflow", f)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(walkCs, logCs) {
			t.Fatalf("since %s: walk %+v, git log %+v", since, walkCs, logCs)
		}
		for _, c := range logCs {
			if named(c.subject) && !reflect.DeepEqual(walkShards[c.sha], logShards[c.sha]) {
				t.Fatalf("since %s: shards of %q: walk %v, git log %v", since, c.subject, walkShards[c.sha], logShards[c.sha])
			}
		}
		if since.Equal(at) && len(walkCs) != 5 {
			t.Fatalf("the whole history: %d commits of the task, want 5: %+v", len(walkCs), walkCs)
		}
	}
	// A merge: log simplifies the history, and the walk leaves it to git.
	gittest.Git(t, dir, "checkout", "-q", "-b", "side", "HEAD~1")
	commitAll("side")
	gittest.Git(t, dir, "checkout", "-q", "-")
	gittest.Git(t, dir, "-c", "user.name=t", "-c", "user.email=t@t", "merge", "-q", "--no-edit", "side")
	if _, _, ok := walkHistory(g, at, ".workflow", f, named); ok {
		t.Fatal("the walk answered across a merge commit")
	}
}
