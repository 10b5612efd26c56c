package workflow

import (
	"os"
	"path/filepath"
	"time"

	"github.com/burl-dev/burl/pkg/bucket"
	"github.com/burl-dev/burl/pkg/task"
)

// The bucket folders and DONE's month shards are package bucket's; these
// names keep the state machine's callers as they were.
type (
	// Bucket is a status folder.
	Bucket = bucket.Bucket
	// Entry is a task file found in a bucket.
	Entry  = bucket.Entry
	folder = bucket.Folder
)

// The buckets of PRD 9.1, and PROPOSED (bucket.Proposed).
const (
	Ready    = bucket.Ready
	Doing    = bucket.Doing
	QA       = bucket.QA
	Done     = bucket.Done
	Blocked  = bucket.Blocked
	Proposed = bucket.Proposed
)

// Buckets and Lanes are bucket.Buckets and bucket.Lanes.
var (
	Buckets = bucket.Buckets
	Lanes   = bucket.Lanes
)

// ParseBucket accepts a bucket name in any case.
func ParseBucket(s string) (Bucket, bool) { return bucket.ParseBucket(s) }

// DoneShard is the DONE subfolder for a task done at t.
func DoneShard(t time.Time) string { return bucket.DoneShard(t) }

// IsDoneShard reports whether a name in DONE/ is a month shard ("2026-11").
func IsDoneShard(n string) bool { return bucket.IsDoneShard(n) }

// BucketOfDir is the bucket of a task folder given relative to the
// workflow directory: "READY", or "DONE/2026-11" for a DONE shard.
func BucketOfDir(rel string) (Bucket, bool) { return bucket.BucketOfDir(rel) }

func names(dir string) ([]string, error) { return bucket.Names(dir) }

func countNames(ns []string) int { return bucket.CountNames(ns) }

// layout is the workflow's bucket folders.
func (w *Workflow) layout() bucket.Layout { return bucket.Layout{Dir: w.Dir} }

// DestDir is the folder a task moved into bucket b at now goes to, created
// when it is a new month shard.
func (w *Workflow) DestDir(b Bucket, now time.Time) (string, error) {
	dir := w.BucketDir(b)
	if b != Done {
		return dir, nil
	}
	dir = filepath.Join(dir, DoneShard(now))
	if _, err := os.Lstat(dir); os.IsNotExist(err) {
		w.newShard = DoneShard(now)
	}
	return dir, os.MkdirAll(dir, 0o755)
}

// DestPath is where doctor moves a task's file (named base) into bucket b:
// for DONE, the shard of its completed_at, or of now when it has none.
func (w *Workflow) DestPath(b Bucket, t *task.Task, base string) string {
	return w.layout().DestPath(b, t, base)
}

func (w *Workflow) folders(b Bucket) ([]folder, error) { return w.layout().Folders(b) }

func (w *Workflow) doneShards(top []string) ([]string, error) { return w.layout().DoneShards(top) }

// DoneShardDirs lists DONE's month shard folders, oldest first.
func (w *Workflow) DoneShardDirs() ([]string, error) { return w.layout().DoneShardDirs() }

func (w *Workflow) locateActive(id string) ([]Entry, error) { return w.layout().LocateActive(id) }

func findIn(fs []folder, b Bucket, id string) []Entry { return bucket.FindIn(fs, b, id) }

// DoneCopies finds files in DONE with the same names as the given open
// task files (an interrupted move, or a merge, leaves such a copy).
func (w *Workflow) DoneCopies(paths []string) (map[string][]string, error) {
	return w.layout().DoneCopies(paths)
}
