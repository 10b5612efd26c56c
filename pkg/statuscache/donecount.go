package statuscache

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/burl-dev/burl/pkg/bucket"
	"github.com/burl-dev/burl/pkg/fsx"
	"github.com/burl-dev/burl/pkg/task"
)

// DoneCountCacheName is the file, under logs/ (machine-local), that
// remembers how many task files each DONE month shard holds.
const DoneCountCacheName = "done-count.cache"

// racyWindow is how old a folder's mtime must be before its count is
// remembered: a folder changed again within its mtime's granularity would
// keep the same stamp (git's "racily clean" problem).
const racyWindow = 2 * time.Second

// CountDone counts DONE's task files by name. A month shard's count is
// remembered by its folder's mtime and size, which change with every file
// added, removed or renamed in it: old months, which never change, cost a
// stat each instead of a listing of their files, so counting 100,000 DONE
// tasks reads a few dozen directory entries.
func (w *Cache) CountDone() (int, error) {
	n, _, err := w.DoneCounts()
	return n, err
}

// DoneCounts is how many tasks DONE holds, and how many of them were
// cancelled (resolution: cancelled) rather than landed. A shard's
// cancelled tasks are found by reading its files when it is counted
// again, which its cached count spares for every month but a changed one.
func (w *Cache) DoneCounts() (n, cancelled int, err error) {
	top, err := bucket.Names(w.BucketDir(bucket.Done))
	if err != nil {
		return 0, 0, err
	}
	shards, err := w.DoneShards(top)
	if err != nil {
		return 0, 0, err
	}
	file := filepath.Join(w.LogsDir(), DoneCountCacheName)
	known := readDoneCounts(file)
	keep := map[string]doneCount{}
	now := time.Now()
	// The flat folder (files of earlier versions) is remembered too, under
	// its own name: its thousands of files are not read on every status.
	for _, s := range append([]string{w.BucketDir(bucket.Done)}, shards...) {
		st, err := os.Lstat(s)
		if err != nil {
			return 0, 0, err
		}
		stamp := fmt.Sprintf("%d:%d", st.ModTime().UnixNano(), st.Size())
		name := filepath.Base(s)
		if c, ok := known[name]; ok && c.stamp == stamp {
			n += c.n
			cancelled += c.cancelled
			keep[name] = c
			continue
		}
		ns := top
		if name != string(bucket.Done) {
			if ns, err = bucket.Names(s); err != nil {
				return 0, 0, err
			}
		}
		k, c := bucket.CountNames(ns), countCancelled(s, ns)
		n += k
		cancelled += c
		if now.Sub(st.ModTime()) > racyWindow {
			keep[name] = doneCount{stamp, k, c}
		}
	}
	if !sameCounts(known, keep) {
		writeDoneCounts(file, keep)
	}
	return n, cancelled, nil
}

// cancelledLine is how cancel writes the resolution (Task.SetStr).
var cancelledLine = []byte("\n" + task.KeyResolution + ": " + task.ResolutionCancelled)

// countCancelled counts the task files among ns in dir whose frontmatter
// says resolution: cancelled; a file that cannot be read is not counted.
func countCancelled(dir string, ns []string) int {
	c := 0
	for _, name := range ns {
		if _, ok := task.IDFromFileName(name); !ok {
			continue
		}
		data, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			continue
		}
		if end := bytes.Index(data[min(3, len(data)):], []byte("\n---")); end >= 0 {
			data = data[:end+4]
		}
		if i := bytes.Index(data, cancelledLine); i >= 0 {
			if rest := data[i+len(cancelledLine):]; len(rest) == 0 || rest[0] == '\n' || rest[0] == '\r' || rest[0] == ' ' {
				c++
			}
		}
	}
	return c
}

type doneCount struct {
	stamp        string
	n, cancelled int
}

// The cache is a line per shard: "<month> <mtime-ns>:<size> <count>
// <cancelled>", and one of the flat folder, named DONE (a line of an older burl, without the last, is recounted). A
// file that cannot be read is an empty cache: it is only a shortcut.
func readDoneCounts(file string) map[string]doneCount {
	out := map[string]doneCount{}
	f, err := os.Open(file)
	if err != nil {
		return out
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fs := strings.Fields(sc.Text())
		if len(fs) != 4 || !bucket.IsDoneShard(fs[0]) && fs[0] != string(bucket.Done) {
			continue
		}
		k, err := strconv.Atoi(fs[2])
		c, cerr := strconv.Atoi(fs[3])
		if err == nil && cerr == nil && k >= 0 && c >= 0 {
			out[fs[0]] = doneCount{fs[1], k, c}
		}
	}
	return out
}

func writeDoneCounts(file string, counts map[string]doneCount) {
	months := make([]string, 0, len(counts))
	for m := range counts {
		months = append(months, m)
	}
	sort.Strings(months)
	var b strings.Builder
	for _, m := range months {
		fmt.Fprintf(&b, "%s %s %d %d\n", m, counts[m].stamp, counts[m].n, counts[m].cancelled)
	}
	_ = fsx.WriteFile(file, []byte(b.String()))
}

func sameCounts(a, b map[string]doneCount) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if b[k] != v {
			return false
		}
	}
	return true
}
