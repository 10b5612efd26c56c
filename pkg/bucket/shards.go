package bucket

import (
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/burl-dev/burl/pkg/task"
)

// DONE is sharded by month (DESIGN §13): an approve writes
// DONE/2026-11/TASK-…md, so that it rewrites one month's tree instead of
// the tree of every task ever done. The folder still says "done". Flat
// DONE/ files of earlier versions are still read; init moves them.

// DoneShard is the DONE subfolder for a task done at t.
func DoneShard(t time.Time) string { return t.UTC().Format("2006-01") }

// IsDoneShard reports whether a name in DONE/ is a month shard ("2026-11").
func IsDoneShard(n string) bool {
	if len(n) != 7 || n[4] != '-' {
		return false
	}
	for i, c := range []byte(n) {
		if i != 4 && (c < '0' || c > '9') {
			return false
		}
	}
	return n[5:] >= "01" && n[5:] <= "12"
}

// BucketOfDir is the bucket of a task folder given relative to the
// workflow directory: "READY", or "DONE/2026-11" for a DONE shard.
func BucketOfDir(rel string) (Bucket, bool) {
	if top, shard, ok := strings.Cut(rel, "/"); ok {
		return Done, top == string(Done) && IsDoneShard(shard)
	}
	return ParseBucket(rel)
}

// Layout is where a workflow directory keeps its bucket folders.
type Layout struct {
	Dir string // <workflow worktree>/.workflow
}

// BucketDir is the folder of bucket b.
func (w Layout) BucketDir(b Bucket) string { return filepath.Join(w.Dir, string(b)) }

// DestPath is where doctor moves a task's file (named base) into bucket b:
// for DONE, the shard of its completed_at, or of now when it has none.
func (w Layout) DestPath(b Bucket, t *task.Task, base string) string {
	if b != Done {
		return filepath.Join(w.BucketDir(b), base)
	}
	at := time.Now()
	if t != nil {
		if c, err := time.Parse(time.RFC3339, t.Str(task.KeyCompletedAt)); err == nil {
			at = c
		}
	}
	return filepath.Join(w.BucketDir(Done), DoneShard(at), base)
}

// Folder is one directory of task files and its names.
type Folder struct {
	Dir   string
	Names []string
}

// Folders lists the task-file folders of bucket b with their names: one
// for every bucket but DONE, which has its flat folder (files of earlier
// versions) and each month shard, oldest first. A shard that is not a real
// directory (a symlink) is left out: burl never follows links in the
// workflow, and doctor reports it.
func (w Layout) Folders(b Bucket) ([]Folder, error) {
	dir := w.BucketDir(b)
	ns, err := Names(dir)
	if err != nil {
		return nil, err
	}
	out := []Folder{{Dir: dir, Names: ns}}
	if b != Done {
		return out, nil
	}
	shards, err := w.DoneShards(ns)
	if err != nil {
		return nil, err
	}
	for _, s := range shards {
		sns, err := Names(s)
		if err != nil {
			return nil, err
		}
		out = append(out, Folder{Dir: s, Names: sns})
	}
	return out, nil
}

// DoneShards are the month shard folders among the names of DONE/, oldest
// first.
func (w Layout) DoneShards(top []string) ([]string, error) {
	var months []string
	for _, n := range top {
		if IsDoneShard(n) {
			months = append(months, n)
		}
	}
	sort.Strings(months)
	var out []string
	for _, m := range months {
		p := filepath.Join(w.BucketDir(Done), m)
		st, err := os.Lstat(p)
		if err != nil {
			return nil, err
		}
		if st.IsDir() {
			out = append(out, p)
		}
	}
	return out, nil
}

// DoneShardDirs lists DONE's month shard folders, oldest first.
func (w Layout) DoneShardDirs() ([]string, error) {
	top, err := Names(w.BucketDir(Done))
	if err != nil {
		return nil, err
	}
	return w.DoneShards(top)
}

// LocateActive finds id in every bucket but DONE, which stays small
// however long the history is.
func (w Layout) LocateActive(id string) ([]Entry, error) {
	var found []Entry
	for _, b := range Buckets {
		if b == Done {
			continue
		}
		fs, err := w.Folders(b)
		if err != nil {
			return nil, err
		}
		found = append(found, FindIn(fs, b, id)...)
	}
	return found, nil
}

// FindIn is the files of id among the folders fs of bucket b.
func FindIn(fs []Folder, b Bucket, id string) []Entry {
	var found []Entry
	for _, f := range fs {
		for _, n := range f.Names {
			if fid, ok := task.IDFromFileName(n); ok && fid == id {
				found = append(found, Entry{ID: id, Bucket: b, Path: filepath.Join(f.Dir, n)})
			}
		}
	}
	return found
}

// DoneCopies finds files in DONE with the same names as the given open
// task files (an interrupted move, or a merge, leaves such a copy), by
// looking each name up in every DONE folder rather than listing them.
func (w Layout) DoneCopies(paths []string) (map[string][]string, error) {
	dirs, err := w.DoneShardDirs()
	if err != nil {
		return nil, err
	}
	dirs = append([]string{w.BucketDir(Done)}, dirs...)
	out := map[string][]string{}
	for _, p := range paths {
		base := filepath.Base(p)
		for _, d := range dirs {
			c := filepath.Join(d, base)
			if _, err := os.Lstat(c); err == nil {
				out[p] = append(out[p], c)
			}
		}
	}
	return out, nil
}
