package statuscache

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/burl-dev/burl/pkg/bucket"
	"github.com/burl-dev/burl/pkg/task"
)

// doneShard makes DONE/<month>/ with the tasks ids, its mtime an hour ago.
func doneShard(t *testing.T, w *Cache, month string, ids ...int) string {
	t.Helper()
	dir := filepath.Join(w.BucketDir(bucket.Done), month)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, i := range ids {
		if err := os.WriteFile(filepath.Join(dir, task.FileName(task.FormatID(i), "done")), []byte("x"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	old := time.Now().Add(-time.Hour)
	if err := os.Chtimes(dir, old, old); err != nil {
		t.Fatal(err)
	}
	return dir
}

func count(t *testing.T, w *Cache) int {
	t.Helper()
	n, err := w.CountDone()
	if err != nil {
		t.Fatal(err)
	}
	return n
}

func TestCountDoneRemembersOldShardsAndSeesChanges(t *testing.T) {
	w := cacheWorkflow(t, 0)
	if err := os.MkdirAll(w.LogsDir(), 0o755); err != nil {
		t.Fatal(err)
	}
	old := doneShard(t, w, "2025-01", 1, 2, 3)
	doneShard(t, w, "2025-02", 4)
	writeTask(t, w, bucket.Done, 5, "flat DONE of an earlier version")
	if got := count(t, w); got != 5 {
		t.Fatalf("count = %d, want 5", got)
	}
	cache := filepath.Join(w.LogsDir(), DoneCountCacheName)
	if b, err := os.ReadFile(cache); err != nil || len(b) == 0 {
		t.Fatalf("no count cache written: %v", err)
	}
	// A remembered shard is not listed again: a lie planted in the cache
	// for a folder whose stamp still matches is believed...
	st, _ := os.Lstat(old)
	planted := map[string]doneCount{}
	for k, v := range readDoneCounts(cache) {
		planted[k] = v
	}
	planted["2025-01"] = doneCount{planted["2025-01"].stamp, 100, 0}
	writeDoneCounts(cache, planted)
	if got := count(t, w); got != 102 {
		t.Fatalf("count with the remembered shard = %d, want 102", got)
	}
	// ...and a file added to that shard changes its stamp: listed again.
	if err := os.WriteFile(filepath.Join(old, task.FileName(task.FormatID(6), "late")), []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Chtimes(old, st.ModTime().Add(time.Minute), st.ModTime().Add(time.Minute)); err != nil {
		t.Fatal(err)
	}
	if got := count(t, w); got != 6 {
		t.Fatalf("count after a file was added = %d, want 6", got)
	}
}

func TestCountDoneDoesNotRememberAShardChangedJustNow(t *testing.T) {
	w := cacheWorkflow(t, 0)
	if err := os.MkdirAll(w.LogsDir(), 0o755); err != nil {
		t.Fatal(err)
	}
	dir := doneShard(t, w, "2026-11", 1)
	now := time.Now()
	if err := os.Chtimes(dir, now, now); err != nil {
		t.Fatal(err)
	}
	if got := count(t, w); got != 1 {
		t.Fatalf("count = %d, want 1", got)
	}
	if _, ok := readDoneCounts(filepath.Join(w.LogsDir(), DoneCountCacheName))["2026-11"]; ok {
		t.Fatal("a shard changed within the racy window was remembered")
	}
}

func TestReadDoneCountsIgnoresGarbage(t *testing.T) {
	f := filepath.Join(t.TempDir(), "c")
	if err := os.WriteFile(f, []byte("2025-01 1:2 3 1\nnot a line\n../x 1:2 3 0\n2025-02 1:2 -4 0\n2025-03 1:2 3\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	got := readDoneCounts(f)
	if len(got) != 1 || got["2025-01"].n != 3 || got["2025-01"].cancelled != 1 {
		t.Fatalf("readDoneCounts = %v", got)
	}
}

func TestRecentDoneReadsOnlyTheNewestShards(t *testing.T) {
	w := cacheWorkflow(t, 0)
	doneShard(t, w, "2025-01", 1, 2, 3)
	doneShard(t, w, "2025-02", 4, 5)
	doneShard(t, w, "2025-03", 6)
	ids := func(min int) map[string]bool {
		t.Helper()
		sums, err := w.RecentDone(min, false)
		if err != nil {
			t.Fatal(err)
		}
		out := map[string]bool{}
		for _, s := range sums {
			out[s.ID] = true
		}
		return out
	}
	if got := ids(1); len(got) != 1 || !got["TASK-006"] {
		t.Fatalf("RecentDone(1) = %v, want the newest shard only", got)
	}
	if got := ids(2); len(got) != 3 || !got["TASK-004"] || got["TASK-001"] {
		t.Fatalf("RecentDone(2) = %v, want the two newest shards", got)
	}
	if got := ids(100); len(got) != 6 {
		t.Fatalf("RecentDone(100) = %v, want every shard", got)
	}
}

func TestDoneCountsTellCancelledFromLanded(t *testing.T) {
	w := cacheWorkflow(t, 0)
	doneShard(t, w, "2025-01", 1, 2)
	dir := filepath.Join(w.BucketDir(bucket.Done), "2025-01")
	p := filepath.Join(dir, task.FileName(task.FormatID(3), "gone"))
	if err := os.WriteFile(p, []byte("---\nid: TASK-003\nresolution: cancelled\n---\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for range 2 { // counted, then from the cache
		n, c, err := w.DoneCounts()
		if err != nil || n != 3 || c != 1 {
			t.Fatalf("DoneCounts = %d, %d, %v; want 3, 1", n, c, err)
		}
	}
}

// The flat folder of earlier versions is remembered as a shard is: its
// files are read for cancelled ones once, not on every status.
func TestDoneCountsRememberTheFlatFolder(t *testing.T) {
	w := cacheWorkflow(t, 0)
	if err := os.MkdirAll(w.LogsDir(), 0o755); err != nil {
		t.Fatal(err)
	}
	flat := w.BucketDir(bucket.Done)
	for i, body := range []string{"---\nid: TASK-001\n---\n", "---\nid: TASK-002\nresolution: cancelled\n---\n"} {
		if err := os.WriteFile(filepath.Join(flat, task.FileName(task.FormatID(i+1), "flat")), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	old := time.Now().Add(-time.Hour)
	if err := os.Chtimes(flat, old, old); err != nil {
		t.Fatal(err)
	}
	if n, c, err := w.DoneCounts(); err != nil || n != 2 || c != 1 {
		t.Fatalf("DoneCounts = %d, %d, %v; want 2, 1", n, c, err)
	}
	cache := filepath.Join(w.LogsDir(), DoneCountCacheName)
	known := readDoneCounts(cache)
	if known[string(bucket.Done)].n != 2 {
		t.Fatalf("the flat folder was not remembered: %v", known)
	}
	// A lie planted for a folder whose stamp still matches is believed:
	// its files were not read again.
	known[string(bucket.Done)] = doneCount{known[string(bucket.Done)].stamp, 2, 0}
	writeDoneCounts(cache, known)
	if _, c, _ := w.DoneCounts(); c != 0 {
		t.Fatalf("cancelled = %d: the remembered flat folder was read again", c)
	}
	// A file added changes its stamp: read again.
	if err := os.WriteFile(filepath.Join(flat, task.FileName(task.FormatID(3), "flat")), []byte("---\nid: TASK-003\n---\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if n, c, _ := w.DoneCounts(); n != 3 || c != 1 {
		t.Fatalf("after a file was added: %d, %d; want 3, 1", n, c)
	}
}
