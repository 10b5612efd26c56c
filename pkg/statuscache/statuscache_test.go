package statuscache

import (
	"bytes"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/burl-dev/burl/pkg/bucket"
	"github.com/burl-dev/burl/pkg/osx"
	"github.com/burl-dev/burl/pkg/task"
)

// cacheWorkflow is a workflow directory with its buckets and n tasks in
// READY, without git: Summaries reads only the filesystem.
func cacheWorkflow(t testing.TB, n int) *Cache {
	t.Helper()
	root := t.TempDir()
	w := &Cache{Layout: bucket.Layout{Dir: filepath.Join(root, ".workflow")}, Logs: filepath.Join(root, ".workflow", "logs"), Read: read}
	for _, b := range bucket.Buckets {
		if err := os.MkdirAll(w.BucketDir(b), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for i := 1; i <= n; i++ {
		writeTask(t, w, bucket.Ready, i, "Task title "+task.FormatID(i))
	}
	return w
}

// read is the workflow's Read without its checks of the branch: a task
// file parsed and validated, or its error.
func read(e *bucket.Entry) {
	data, err := os.ReadFile(e.Path)
	if err != nil {
		e.Err = err
		return
	}
	t, err := task.Parse(data)
	if err == nil {
		err = t.Validate(e.ID)
	}
	if err != nil {
		e.Err = err
		return
	}
	e.Task = t
}

func taskPath(w *Cache, b bucket.Bucket, i int) string {
	return filepath.Join(w.BucketDir(b), task.FileName(task.FormatID(i), "work"))
}

func writeTask(t testing.TB, w *Cache, b bucket.Bucket, i int, title string) {
	t.Helper()
	tk := task.New(task.Spec{ID: task.FormatID(i), Title: title, Priority: "high", Created: time.Unix(1700000000, 0)})
	if err := os.WriteFile(taskPath(w, b, i), tk.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
}

func titles(t *testing.T, w *Cache) map[string]string {
	t.Helper()
	sums, err := w.Summaries(true, true)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	for _, s := range sums {
		if s.Err != nil {
			out[s.ID] = "ERR"
			continue
		}
		out[s.ID] = string(s.Bucket) + ":" + s.Title
	}
	return out
}

var oldTime = time.Now().Add(-time.Hour)

// ageFiles moves every task file's mtime into the past, as if written long
// before, so the cache may store them.
func ageFiles(t *testing.T, w *Cache) {
	t.Helper()
	for _, b := range bucket.Buckets {
		ns, _ := bucket.Names(w.BucketDir(b))
		for _, n := range ns {
			if err := os.Chtimes(filepath.Join(w.BucketDir(b), n), oldTime, oldTime); err != nil {
				t.Fatal(err)
			}
		}
	}
	// Chtimes sets ctime to now: let the filesystem's clock move past it.
	time.Sleep(30 * time.Millisecond)
}

func TestSummariesServesCacheAndSeesEveryChange(t *testing.T) {
	w := cacheWorkflow(t, 3)
	ageFiles(t, w)
	if got := titles(t, w)["TASK-002"]; got != "READY:Task title TASK-002" {
		t.Fatalf("cold: %q", got)
	}
	if _, err := os.Stat(filepath.Join(w.LogsDir(), StatusCacheName)); err != nil {
		t.Fatalf("no cache written: %v", err)
	}
	// Same size, same mtime (set back by hand), same second: ctime and
	// inode still tell the rewrite apart.
	p := taskPath(w, bucket.Ready, 2)
	st, _ := os.Stat(p)
	data, _ := os.ReadFile(p)
	data = bytes.Replace(data, []byte("Task title TASK-002"), []byte("Task TITLE TASK-002"), 1)
	if err := os.WriteFile(p, data, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Chtimes(p, st.ModTime(), st.ModTime()); err != nil {
		t.Fatal(err)
	}
	if got := titles(t, w)["TASK-002"]; got != "READY:Task TITLE TASK-002" {
		t.Fatalf("same-size rewrite served stale: %q", got)
	}
	// A move between buckets, a new file and a deleted one.
	if err := os.Rename(p, taskPath(w, bucket.Doing, 2)); err != nil {
		t.Fatal(err)
	}
	writeTask(t, w, bucket.QA, 4, "Fourth")
	if err := os.Remove(taskPath(w, bucket.Ready, 3)); err != nil {
		t.Fatal(err)
	}
	got := titles(t, w)
	want := map[string]string{"TASK-001": "READY:Task title TASK-001", "TASK-002": "DOING:Task TITLE TASK-002", "TASK-004": "QA:Fourth"}
	if len(got) != len(want) {
		t.Fatalf("got %v, want %v", got, want)
	}
	for k, v := range want {
		if got[k] != v {
			t.Fatalf("%s: got %q, want %q (all: %v)", k, got[k], v, got)
		}
	}
}

// A file written in the same clock tick as the cache is never stored: were
// it rewritten in that tick with the same size, nothing in its stat could
// tell.
func TestSummariesDoesNotStoreRacyFiles(t *testing.T) {
	w := cacheWorkflow(t, 1)
	future := time.Now().Add(time.Hour)
	p := taskPath(w, bucket.Ready, 1)
	if err := os.Chtimes(p, future, future); err != nil {
		t.Fatal(err)
	}
	titles(t, w)
	if c := openStatusCache(filepath.Join(w.LogsDir(), StatusCacheName), w.Dir, false); c.count() != 0 {
		c.close()
		t.Fatalf("a file newer than the clock reading was cached")
	}
}

func TestSummariesIgnoresCorruptCache(t *testing.T) {
	w := cacheWorkflow(t, 2)
	ageFiles(t, w)
	titles(t, w)
	cp := filepath.Join(w.LogsDir(), StatusCacheName)
	data, err := os.ReadFile(cp)
	if err != nil {
		t.Fatal(err)
	}
	for _, bad := range [][]byte{nil, data[:len(data)/2], bytes.Replace(data, []byte("Task title"), []byte("Task tItle"), 1)} {
		if err := os.WriteFile(cp, bad, 0o644); err != nil {
			t.Fatal(err)
		}
		if got := titles(t, w)["TASK-001"]; got != "READY:Task title TASK-001" {
			t.Fatalf("corrupt cache %q... served %q", bad[:min(len(bad), 30)], got)
		}
		// Lazily (status --json), the cache is mapped rather than read.
		if err := os.WriteFile(cp, bad, 0o644); err != nil {
			t.Fatal(err)
		}
		lazy, err := w.SummariesLazy(true)
		if err != nil || len(lazy) != 2 || lazy[0].Title != "Task title "+lazy[0].ID ||
			!bytes.Contains(w.FieldsOf(&lazy[0]), []byte(`"title":"Task title `+lazy[0].ID+`"`)) {
			t.Fatalf("corrupt cache %q... served lazily %+v (%v)", bad[:min(len(bad), 30)], lazy, err)
		}
	}
}

func TestSummariesReportsMalformedEveryTime(t *testing.T) {
	w := cacheWorkflow(t, 1)
	p := taskPath(w, bucket.Ready, 1)
	if err := os.WriteFile(p, []byte("no frontmatter\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	ageFiles(t, w)
	for range 2 {
		if got := titles(t, w)["TASK-001"]; got != "ERR" {
			t.Fatalf("malformed file summarised as %q", got)
		}
	}
}

// Status without --json reads only the cache's index, yet a rewrite it
// makes must keep every other entry's fields for the next --json.
func TestSummariesKeepsFieldsAcrossModes(t *testing.T) {
	w := cacheWorkflow(t, 3)
	ageFiles(t, w)
	if _, err := w.Summaries(false, true); err != nil {
		t.Fatal(err)
	}
	writeTask(t, w, bucket.Ready, 2, "Changed")
	ageFiles(t, w)
	sums, err := w.Summaries(false, true)
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range sums {
		if s.Fields != nil {
			t.Fatalf("%s: fields loaded without --json", s.ID)
		}
	}
	if sums, err = w.Summaries(true, true); err != nil {
		t.Fatal(err)
	}
	for _, s := range sums {
		if !bytes.Contains(s.Fields, []byte(`"id":"`+s.ID+`"`)) || !bytes.Contains(s.Fields, []byte(`"title":"`+s.Title+`"`)) {
			t.Fatalf("%s: fields %s", s.ID, s.Fields)
		}
	}
}

// SummariesLazy leaves the fields of cached tasks in the cache (mapped,
// off the heap) and FieldsOf reads the same bytes Summaries would have; a
// task whose cache cannot tell is read from its file.
func TestSummariesLazyReadsFieldsWhenAsked(t *testing.T) {
	w := cacheWorkflow(t, 3)
	writeTask(t, w, bucket.Done, 4, "Done one")
	ageFiles(t, w)
	want := map[string]string{}
	sums, err := w.Summaries(true, true)
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range sums {
		want[s.ID] = string(s.Fields)
	}
	writeTask(t, w, bucket.Ready, 2, "Changed")
	ageFiles(t, w)
	// The first read after the change writes the cache again, holding
	// what it read; the second is served from the cache.
	first, err := w.SummariesLazy(true)
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range first {
		if s.ID == "TASK-002" && !strings.Contains(string(s.Fields), `"title":"Changed"`) {
			t.Errorf("the changed task, parsed: %q", s.Fields)
		}
	}
	want["TASK-002"] = strings.Replace(want["TASK-002"], "Task title TASK-002", "Changed", 1)
	lazy, err := w.SummariesLazy(true)
	if err != nil || len(lazy) != 4 {
		t.Fatalf("%d summaries, %v", len(lazy), err)
	}
	for i := range lazy {
		s := &lazy[i]
		if s.Fields != nil || s.from == nil {
			t.Errorf("%s: fields held (%q) rather than left in the cache", s.ID, s.Fields)
		}
		if got := string(w.FieldsOf(s)); got != want[s.ID] {
			t.Errorf("%s: read %q, want %q", s.ID, got, want[s.ID])
		}
	}
	// A cache whose blob cannot be read: the file tells.
	s := lazy[0]
	s.from = &statusCache{}
	if got := string(w.FieldsOf(&s)); got != want[s.ID] {
		t.Errorf("from the file: %q", got)
	}
}

// Every summary field survives the cache, and a second read is served from
// it: the reader must pass over exactly the strings the writer wrote (it
// once skipped 13 of 15, and every read silently parsed every file again).
func TestSummariesCacheRoundTripsEveryField(t *testing.T) {
	w := cacheWorkflow(t, 0)
	tk := task.New(task.Spec{ID: "TASK-007", Title: "All of it", Priority: "low", Created: time.Unix(1700000000, 0)})
	tk.SetStr(task.KeyAssignedTo, "agent-1")
	tk.SetStr(task.KeyBranch, "task-007-all")
	tk.SetStr(task.KeyStartedAt, "2026-01-01T00:00:00Z")
	tk.SetList(task.KeyDependsOn, []string{"TASK-001", "TASK-002"})
	tk.SetList(task.KeyAffects, []string{"a.go"})
	tk.SetList(task.KeyAffectsGlobs, []string{"src/**", "doc/*"})
	tk.SetList(task.KeyMustNotTouch, []string{"vendor/**"})
	tk.SetStr(task.KeyBaseSHA, "0123456789abcdef0123456789abcdef01234567")
	tk.SetStr(task.KeyScopeRequest, "wants lib/**")
	tk.SetStr(task.KeyPRNumber, "12")
	tk.SetStr(task.KeyPRURL, "https://forge.example/o/r/pulls/12")
	p := filepath.Join(w.BucketDir(bucket.QA), task.FileName("TASK-007", "all"))
	if err := os.WriteFile(p, tk.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	ageFiles(t, w)
	cold, err := w.Summaries(true, true)
	if err != nil || len(cold) != 1 {
		t.Fatalf("cold: %v %v", cold, err)
	}
	c := openStatusCache(filepath.Join(w.LogsDir(), StatusCacheName), w.Dir, false)
	defer c.close()
	if c.count() != 1 {
		t.Fatalf("the cache written holds %d readable entries, want 1", c.count())
	}
	k := osx.StatNames(w.BucketDir(bucket.QA), []string{filepath.Base(p)}, forChunks)[0]
	warm, ok := c.lookup(keyOf(bucket.QA, filepath.Base(p)), k)
	if !ok {
		t.Fatal("the cached entry is not served")
	}
	warm.Bucket, warm.Path, warm.Fields = cold[0].Bucket, cold[0].Path, cold[0].Fields
	if !reflect.DeepEqual(warm, cold[0]) {
		t.Errorf("cached %+v\nparsed %+v", warm, cold[0])
	}
}

// The cache is read in the order it was written; a lookup in any other
// order (a file added, a folder listed differently) must still be served,
// and the count must stay whole either way.
func TestStatusCacheServesAnyOrder(t *testing.T) {
	w := cacheWorkflow(t, 5)
	ageFiles(t, w)
	if _, err := w.Summaries(false, true); err != nil {
		t.Fatal(err)
	}
	ns, _ := bucket.Names(w.BucketDir(bucket.Ready))
	ks := osx.StatNames(w.BucketDir(bucket.Ready), ns, forChunks)
	for _, order := range [][]int{{0, 1, 2, 3, 4}, {4, 3, 2, 1, 0}, {0, 1, 3, 2, 4}} {
		c := openStatusCache(filepath.Join(w.LogsDir(), StatusCacheName), w.Dir, false)
		for _, i := range order {
			if s, ok := c.lookup(keyOf(bucket.Ready, ns[i]), ks[i]); !ok || s.Title != "Task title "+s.ID {
				t.Errorf("order %v: %s not served (%v)", order, ns[i], ok)
			}
		}
		if c.count() != 5 {
			t.Errorf("order %v: count %d, want 5", order, c.count())
		}
		c.close()
	}
	// A name that is no task's (DONE's month shards) keeps the order: the
	// map that a lookup out of order builds is not needed.
	c := openStatusCache(filepath.Join(w.LogsDir(), StatusCacheName), w.Dir, false)
	defer c.close()
	for i := range ns {
		if _, ok := c.lookup(keyOf(bucket.Ready, "2026-11"), osx.FileKey{}); ok {
			t.Fatal("a month shard's name was served")
		}
		if _, ok := c.lookup(keyOf(bucket.Ready, ns[i]), ks[i]); !ok {
			t.Errorf("%s not served", ns[i])
		}
	}
	if c.at != nil || c.count() != 5 {
		t.Errorf("a shard's name ended the cache's order (count %d)", c.count())
	}
}
