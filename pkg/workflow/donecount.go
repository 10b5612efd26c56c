package workflow

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"

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

// countDone counts DONE's task files by name. A month shard's count is
// remembered by its folder's mtime and size, which change with every file
// added, removed or renamed in it: old months, which never change, cost a
// stat each instead of a listing of their files, so counting 100,000 DONE
// tasks reads a few dozen directory entries.
func (w *Workflow) countDone() (int, error) {
	top, err := names(w.BucketDir(Done))
	if err != nil {
		return 0, err
	}
	n := countNames(top)
	shards, err := w.doneShards(top)
	if err != nil {
		return 0, err
	}
	file := filepath.Join(w.LogsDir(), DoneCountCacheName)
	known := readDoneCounts(file)
	keep := map[string]doneCount{}
	now := time.Now()
	for _, s := range shards {
		st, err := os.Lstat(s)
		if err != nil {
			return 0, err
		}
		stamp := fmt.Sprintf("%d:%d", st.ModTime().UnixNano(), st.Size())
		name := filepath.Base(s)
		if c, ok := known[name]; ok && c.stamp == stamp {
			n += c.n
			keep[name] = c
			continue
		}
		ns, err := names(s)
		if err != nil {
			return 0, err
		}
		k := countNames(ns)
		n += k
		if now.Sub(st.ModTime()) > racyWindow {
			keep[name] = doneCount{stamp, k}
		}
	}
	if !sameCounts(known, keep) {
		writeDoneCounts(file, keep)
	}
	return n, nil
}

func countNames(ns []string) int {
	n := 0
	for _, name := range ns {
		if _, ok := task.IDFromFileName(name); ok {
			n++
		}
	}
	return n
}

type doneCount struct {
	stamp string
	n     int
}

// The cache is a line per shard: "<month> <mtime-ns>:<size> <count>". A
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
		if len(fs) != 3 || !IsDoneShard(fs[0]) {
			continue
		}
		if k, err := strconv.Atoi(fs[2]); err == nil && k >= 0 {
			out[fs[0]] = doneCount{fs[1], k}
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
		fmt.Fprintf(&b, "%s %s %d\n", m, counts[m].stamp, counts[m].n)
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
