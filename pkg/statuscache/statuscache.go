// Package statuscache holds the machine-local caches that status reads a
// workflow through: each task file's summary, kept while the file is
// unchanged, and the count of DONE's month shards.
package statuscache

import (
	"encoding/json"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"

	"github.com/burl-dev/burl/pkg/bucket"
	"github.com/burl-dev/burl/pkg/osx"
	"github.com/burl-dev/burl/pkg/task"
)

// Cache reads the task files of the buckets under Layout, keeping what it
// read in cache files under Logs (machine-local, beside the task files).
type Cache struct {
	bucket.Layout
	Logs string
	// Read parses a task file into e.Task, or sets e.Err for a malformed
	// one, as the workflow reads every task.
	Read func(e *bucket.Entry)
}

// LogsDir is where the cache files are.
func (w *Cache) LogsDir() string { return w.Logs }

// Summary is what `status` needs of one task file. Summaries are served
// from a machine-local cache while the file is unchanged, because parsing
// YAML (~40 µs a file) is what a status over thousands of tasks would
// otherwise spend its time on.
type Summary struct {
	ID     string
	Bucket bucket.Bucket
	Path   string
	// The frontmatter values status shows and sorts by.
	Title, Priority, Created, AssignedTo, Branch, StartedAt string
	// DependsOn is depends_on: status tells a READY task that waits for
	// another from one that can be claimed.
	DependsOn []string
	// What claim, submit and approve would refuse, so that status never
	// suggests them: the declared scope of an open task (not of DONE
	// ones, to keep the cache small), base_sha, and whether a QA task's
	// report ends in a failed gate run.
	Affects, AffectsGlobs, MustNotTouch []string
	BaseSHA                             string
	GateFailed                          bool
	// ScopeRequest is an open task's pending scope_request: status names
	// the human decision it waits for.
	ScopeRequest string
	// BlockedReason is a BLOCKED task's blocked_reason in its one-line
	// summary (Task.BlockedSummary): what boards and lists show.
	BlockedReason string
	// Held is why a human holds the task back from agents (held_reason).
	Held string
	// Resolution is a DONE task's resolution ("cancelled"; "" landed).
	Resolution string
	// PRNumber and PRURL are a QA task's open pull request (landing: pr):
	// status shows it and suggests only git burl sync.
	PRNumber, PRURL string
	// LeaseHolder and LeaseExpires are a DOING task's lease: whether the
	// watcher that holds it still lives (package lease).
	LeaseHolder, LeaseExpires string
	// HasUsage: the task's frontmatter has usage (status sums it from
	// Fields; the others are not looked at).
	HasUsage bool
	// Reviewed: a QA task's review approved the head it submitted
	// (Task.ReviewApproved); with agents.yaml review: one that is not
	// waits for its reviewer.
	Reviewed bool
	// OverBudget is what a BLOCKED task's runs spent when that is over
	// its budget (Task.BudgetBlocked), "" otherwise: unblock alone would
	// see it blocked again.
	OverBudget string
	// Fields is the frontmatter as one JSON object (Task.Fields) without
	// the keys status adds itself (SummaryKeys). SummariesLazy leaves it
	// in the cache: FieldsOf reads it.
	Fields json.RawMessage
	Err    error // malformed: reported, and never cached
	// from is the cache holding Fields at off, n (SummariesLazy).
	from   *statusCache
	off, n uint32
}

// SummaryKeys are the keys status adds to each task object; a frontmatter
// key of the same name is left out of Fields so no object has a key twice.
var SummaryKeys = []string{"bucket", "path", "suggest", "locked", "state", "stalled", "lost", "waiting_for", "waits", "why", "conflicts"}

// StatusCacheName is the cache file in the (gitignored) logs directory: it
// must sit on the task files' filesystem, whose clock it reads (see Summaries).
const StatusCacheName = "status-cache"

// statusCacheMagic names the format; bump it when the format, the parser or
// what a summary holds changes, and every old cache is simply ignored.
const statusCacheMagic = "burl status cache 11\n"

// statKey identifies one version of a task file (see osx.FileKey).
type statKey = osx.FileKey

// Summaries is Scan for status: every task file of every bucket, parsed
// only when it changed since the last call. It never serves stale data:
// an entry is reused only when the file's size, mtime, ctime and inode
// (all with nanosecond precision where the OS has it) are what they were,
// and an entry is only stored when the file's timestamps are older than a
// clock reading of the same filesystem taken before the file was read, so
// a file rewritten within the same clock tick as it was cached cannot keep
// its old key. A missing, unreadable or corrupt cache is rebuilt. Fields
// is filled only withFields (status --json): the rest of the cache is a
// third of its size.
//
// DONE, which holds the whole history, has a cache file of its own and is
// summarized only withDone; status without --json shows no more of DONE
// than DoneFiles tells, so that at 100,000 tasks it reads what it does at
// 100 plus one file name per task.
func (w *Cache) Summaries(withFields, withDone bool) ([]Summary, error) {
	mode := noFields
	if withFields {
		mode = allFields
	}
	return w.summariesOf(mode, withDone)
}

// SummariesLazy is Summaries with fields, for a command that writes each
// task's fields out and drops them (status --json): the fields of a task
// read from the cache stay there until FieldsOf asks for them, so that
// thousands of them are never live at once, which would have the GC work
// against the soft memory limit all along.
func (w *Cache) SummariesLazy(withDone bool) ([]Summary, error) {
	return w.summariesOf(lazyFields, withDone)
}

// FieldsOf is s.Fields, read from the status cache SummariesLazy left it
// in (the file is read once, when first asked), or from the task file
// when the cache cannot tell.
func (w *Cache) FieldsOf(s *Summary) json.RawMessage {
	if s.Fields != nil || s.Err != nil {
		return s.Fields
	}
	if c := s.from; c != nil && c.loadFields() {
		if f := c.fields(uint64(s.off), uint64(s.n)); f != nil {
			return f
		}
	}
	e := bucket.Entry{ID: s.ID, Bucket: s.Bucket, Path: s.Path}
	if w.Read(&e); e.Err != nil {
		return nil
	}
	return e.Task.AppendFieldsJSON(nil, SummaryKeys...)
}

// fieldsMode is what summaries does with the fields: none, all of them
// read up front, or each left in the cache until asked for.
type fieldsMode uint8

const (
	noFields fieldsMode = iota
	allFields
	lazyFields
)

func (w *Cache) summariesOf(mode fieldsMode, withDone bool) ([]Summary, error) {
	cachePath := filepath.Join(w.LogsDir(), StatusCacheName)
	var open []bucket.Bucket
	for _, b := range bucket.Buckets {
		if b != bucket.Done {
			open = append(open, b)
		}
	}
	openFs, n, err := w.listed(open, w.Folders)
	if err != nil {
		return nil, err
	}
	var doneFs [][]bucket.Folder
	if withDone {
		var m int
		if doneFs, m, err = w.listed([]bucket.Bucket{bucket.Done}, w.Folders); err != nil {
			return nil, err
		}
		n += m
	}
	// One slice for both: over thousands of tasks, each copy of the
	// summaries is garbage the GC must work through.
	out, err := w.summaries(make([]Summary, 0, n), open, openFs, cachePath, mode)
	if err != nil || !withDone {
		return out, err
	}
	return w.summaries(out, []bucket.Bucket{bucket.Done}, doneFs, cachePath+"-done", mode)
}

// listed lists each bucket's folders with list, and counts their names.
func (w *Cache) listed(buckets []bucket.Bucket, list func(bucket.Bucket) ([]bucket.Folder, error)) ([][]bucket.Folder, int, error) {
	all := make([][]bucket.Folder, len(buckets))
	total := 0
	for i, b := range buckets {
		fs, err := list(b)
		if err != nil {
			return nil, 0, err
		}
		all[i] = fs
		for _, f := range fs {
			total += len(f.Names)
		}
	}
	return all, total, nil
}

// RecentDone is Summaries of DONE's newest month shards, as many as hold
// at least min tasks (and any flat DONE/ files of earlier versions): the
// most recent work, read without the rest of history.
func (w *Cache) RecentDone(min int, withFields bool) ([]Summary, error) {
	newest := func(bucket.Bucket) ([]bucket.Folder, error) {
		dir := w.BucketDir(bucket.Done)
		top, err := bucket.Names(dir)
		if err != nil {
			return nil, err
		}
		shards, err := w.DoneShards(top)
		if err != nil {
			return nil, err
		}
		fs := []bucket.Folder{{Dir: dir, Names: top}}
		n := bucket.CountNames(top)
		for i := len(shards) - 1; i >= 0 && n < min; i-- {
			ns, err := bucket.Names(shards[i])
			if err != nil {
				return nil, err
			}
			fs = append(fs, bucket.Folder{Dir: shards[i], Names: ns})
			n += bucket.CountNames(ns)
		}
		return fs, nil
	}
	fs, n, err := w.listed([]bucket.Bucket{bucket.Done}, newest)
	if err != nil {
		return nil, err
	}
	mode := noFields
	if withFields {
		mode = allFields
	}
	return w.summaries(make([]Summary, 0, n), []bucket.Bucket{bucket.Done}, fs, filepath.Join(w.LogsDir(), StatusCacheName)+"-recent", mode)
}

// summaries appends to dst the summaries of some buckets, each in the
// folders all lists for it, with the cache at cachePath.
func (w *Cache) summaries(dst []Summary, buckets []bucket.Bucket, all [][]bucket.Folder, cachePath string, mode fieldsMode) ([]Summary, error) {
	withFields := mode == allFields
	cache := openStatusCache(cachePath, w.Dir, mode == lazyFields)
	if withFields && !cache.loadFields() {
		cache.close()
		cache = &statusCache{}
	}
	// Lazily, the cache stays open for FieldsOf.
	if mode != lazyFields {
		defer func() { cache.close() }()
	}
	total := 0
	for _, fs := range all {
		for _, f := range fs {
			total += len(f.Names)
		}
	}
	var (
		// out is this call's part of dst, in its spare capacity.
		out    = dst[len(dst):]
		keys   = make([]statKey, 0, total)
		misses []int
		hits   int
	)

	for bi, b := range buckets {
		for _, f := range all[bi] {
			ns := f.Names
			// The folder within the bucket, once per folder.
			dir := ""
			if rel := w.inBucket(b, f.Dir); rel != "." {
				dir = rel + "/"
			}
			for i, k := range osx.StatNames(f.Dir, ns, forChunks) {
				n := ns[i]
				p := f.Dir + string(filepath.Separator) + n
				if s, ok := cache.lookup(entryKey{b, dir, n}, k); ok {
					s.Bucket, s.Path = b, p
					out = append(out, s)
					keys = append(keys, k)
					hits++
					continue
				}
				id, ok := task.IDFromFileName(n)
				if !ok {
					continue
				}
				misses = append(misses, len(out))
				out = append(out, Summary{ID: id, Bucket: b, Path: p})
				keys = append(keys, k)
			}
		}
	}
	if len(misses) == 0 && hits == cache.count() {
		return joined(dst, out), nil
	}
	// Read the filesystem's clock (a new file's mtime) before reading any
	// file: whatever is written to a file after that gets a timestamp no
	// older than this one.
	tmp, clock, err := newCacheTemp(w.LogsDir())
	w.parseSummaries(out, misses)
	if err != nil {
		// Without a place to write, status still works, uncached.
		return joined(dst, out), nil
	}
	cacheable := func(i int) bool {
		k := keys[i]
		return out[i].Err == nil && k.Size >= 0 && k.Mtime < clock && k.Ctime < clock
	}
	newlyCached := 0
	for _, i := range misses {
		if cacheable(i) {
			newlyCached++
		}
	}
	if newlyCached == 0 && hits == cache.count() {
		// Only racy or malformed files changed: the cache is still exact.
		tmp.Close()
		os.Remove(tmp.Name())
		return joined(dst, out), nil
	}
	// Hits carry their fields only when they were loaded; one whose
	// fields cannot be had is left out, to be parsed again next time.
	if !withFields && hits > 0 && cache.loadFields() {
		for i := range out {
			if out[i].Fields == nil && out[i].Err == nil {
				out[i].Fields = cache.fieldsOf(keyOf(out[i].Bucket, w.inBucket(out[i].Bucket, out[i].Path)))
			}
		}
	}
	keep := func(i int) bool { return cacheable(i) && out[i].Fields != nil }
	// A plain temp file + rename rather than fsx.WriteFile: the temp file
	// had to exist before the reads above, as the clock reading. A cache
	// torn by a crash fails its checksum and is rebuilt.
	werr := writeStatusCache(tmp, w.Dir, out, keys, keep)
	// Windows cannot rename over a file that is still open.
	cache.close()
	if cerr := tmp.Close(); werr == nil {
		werr = cerr
	}
	if werr != nil || os.Rename(tmp.Name(), cachePath) != nil {
		os.Remove(tmp.Name())
	}
	if mode == noFields {
		for i := range out {
			out[i].Fields = nil
		}
	}
	return joined(dst, out), nil
}

// joined is dst followed by out, which summaries appended in dst's spare
// capacity: no copy unless out outgrew it.
func joined(dst, out []Summary) []Summary {
	if len(out) > 0 && cap(dst) > len(dst) && &dst[:len(dst)+1][len(dst)] == &out[0] {
		return dst[:len(dst)+len(out)]
	}
	return append(dst, out...)
}

// inBucket is a task file's path within its bucket: its name, or
// "2026-11/<name>" in a DONE shard. The cache is keyed by it.
func (w *Cache) inBucket(b bucket.Bucket, p string) string { return inBucketDir(w.BucketDir(b), p) }

func inBucketDir(bucketDir, p string) string {
	if rel, err := filepath.Rel(bucketDir, p); err == nil {
		return filepath.ToSlash(rel)
	}
	return filepath.Base(p)
}

// parseSummaries reads and parses the files at out[idx] on every core.
func (w *Cache) parseSummaries(out []Summary, idx []int) {
	forChunks(len(idx), func(lo, hi int) {
		for _, i := range idx[lo:hi] {
			out[i] = w.summarize(out[i])
		}
	})
}

// forChunks runs fn over [0, n) split among the cores, in the caller alone
// when n is too small to pay for goroutines.
func forChunks(n int, fn func(lo, hi int)) {
	workers := runtime.GOMAXPROCS(0)
	if n < 256 || workers < 2 {
		fn(0, n)
		return
	}
	var wg sync.WaitGroup
	per := (n + workers - 1) / workers
	for lo := 0; lo < n; lo += per {
		wg.Add(1)
		go func(lo, hi int) {
			defer wg.Done()
			fn(lo, hi)
		}(lo, min(lo+per, n))
	}
	wg.Wait()
}

func (w *Cache) summarize(s Summary) Summary {
	e := bucket.Entry{ID: s.ID, Bucket: s.Bucket, Path: s.Path}
	w.Read(&e)
	if e.Err != nil {
		s.Err = e.Err
		return s
	}
	t := e.Task
	s.Title, s.Priority, s.Created = t.Title(), t.Priority(), t.Str(task.KeyCreated)
	s.AssignedTo, s.Branch, s.StartedAt = t.Str(task.KeyAssignedTo), t.Branch(), t.Str(task.KeyStartedAt)
	s.DependsOn = t.List(task.KeyDependsOn)
	if s.Bucket != bucket.Done {
		s.Affects, s.AffectsGlobs, s.MustNotTouch = t.List(task.KeyAffects), t.List(task.KeyAffectsGlobs), t.List(task.KeyMustNotTouch)
		s.BaseSHA = t.BaseSHA()
		s.ScopeRequest = t.Str(task.KeyScopeRequest)
		s.Held = t.Held()
	} else {
		s.Resolution = t.Str(task.KeyResolution)
	}
	if s.Bucket == bucket.Blocked {
		s.BlockedReason = t.BlockedSummary()
		if spent, over := t.BudgetBlocked(); over {
			s.OverBudget = strconv.FormatFloat(spent, 'f', -1, 64)
		}
	}
	if s.Bucket == bucket.Doing {
		s.LeaseHolder, s.LeaseExpires = t.Str(task.KeyLeaseHolder), t.Str(task.KeyLeaseExpires)
	}
	if s.Bucket == bucket.QA {
		s.PRNumber, s.PRURL = t.Str(task.KeyPRNumber), t.Str(task.KeyPRURL)
		s.GateFailed = LastGateFailed(t)
		s.Reviewed = t.ReviewApproved()
	}
	s.Fields = t.AppendFieldsJSON(nil, SummaryKeys...)
	s.HasUsage = len(t.Usage()) > 0
	return s
}

// LastGateFailed reports whether a task's QA report ends in a failed
// validate or approve: approving it again would fail the same way.
func LastGateFailed(t *task.Task) bool {
	last := ""
	for _, l := range strings.Split(t.Section("QA Report"), "\n") {
		if strings.HasPrefix(l, "### ") {
			last = l
		}
	}
	return strings.HasPrefix(last, "### Validate FAIL") || strings.HasPrefix(last, "### Approve FAIL")
}
