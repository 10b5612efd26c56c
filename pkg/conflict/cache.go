package conflict

import (
	"bufio"
	"os"
	"sort"
	"strings"

	"github.com/burl-dev/burl/pkg/fsx"
	"github.com/burl-dev/burl/pkg/gitx"
)

// Cached is Predict with the answers kept in file (machine-local): the
// outcome of merging two commits never changes, so each pair is merged
// once, and a status that finds no task moved runs no merge at all
// (worktrunk keys its cache the same way). The file keeps only the pairs
// of this prediction, so it stays as small as the work in flight.
func Cached(g gitx.Git, file, mainSHA string, tips []Tip) ([]Pair, error) {
	known := readCache(file)
	before := len(known)
	pairs, err := predict(g, mainSHA, tips, known)
	if err != nil {
		return nil, err
	}
	live := map[string]bool{}
	for _, m := range mergesOf(mainSHA, tips) {
		live[m.key()] = true
	}
	if len(known) != before || len(live) != before {
		writeCache(file, known, live)
	}
	return pairs, nil
}

// The cache is one line per merge: "<a> <b>" then, for a conflict, a tab
// and its files separated by tabs. A file that cannot be read is an
// empty cache: it is only ever a shortcut.
func readCache(file string) map[string][]string {
	known := map[string][]string{}
	f, err := os.Open(file)
	if err != nil {
		return known
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		key, files, conflicted := strings.Cut(sc.Text(), "\t")
		if a, b, ok := strings.Cut(key, " "); !ok || !gitx.ValidObjectID(a) || !gitx.ValidObjectID(b) {
			continue
		}
		if conflicted {
			known[key] = strings.Split(files, "\t")
		} else {
			known[key] = nil
		}
	}
	return known
}

func writeCache(file string, known map[string][]string, live map[string]bool) {
	keys := make([]string, 0, len(live))
	for k := range live {
		if _, ok := known[k]; ok {
			keys = append(keys, k)
		}
	}
	sort.Strings(keys)
	var b strings.Builder
	for _, k := range keys {
		b.WriteString(k)
		if files := known[k]; files != nil {
			b.WriteString("\t" + strings.Join(files, "\t"))
		}
		b.WriteString("\n")
	}
	_ = fsx.WriteFile(file, []byte(b.String()))
}
