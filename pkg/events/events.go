// Package events is the append-only NDJSON event log (PRD 15), committed
// with the workflow so history travels between machines, merged by union
// when two machines append. It is sharded by day (UTC):
// .workflow/events/2026/11/2026-11-22.ndjson. A commit then rewrites one
// small file and three small trees, however long the history (one file
// of every event ever was rehashed and recompressed by every commit).
// The single file of earlier versions, events/events.ndjson, is still
// read, before the shards; git burl init moves it into shards.
package events

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"
)

// FileName is the single log file of earlier versions (read, never
// written; init migrates it into shards).
const FileName = "events.ndjson"

// Path is the shard that holds events of ts's day (UTC) under dir.
func Path(dir string, ts time.Time) string {
	d := ts.UTC().Format("2006-01-02")
	return filepath.Join(dir, d[:4], d[5:7], d+".ndjson")
}

// Event is one line of the log.
type Event struct {
	TS      time.Time      `json:"ts"`
	Task    *string        `json:"task"`
	Action  string         `json:"action"`
	Actor   string         `json:"actor"`
	Details map[string]any `json:"details,omitempty"`
}

// TaskID is Task or "".
func (e Event) TaskID() string {
	if e.Task == nil {
		return ""
	}
	return *e.Task
}

// Append writes one event to its day's shard as a single write(2) on an
// O_APPEND file, so concurrent appenders never interleave within a line.
// It returns the shard's path (for the commit that records it).
func Append(dir string, e Event) (string, error) {
	if e.TS.IsZero() {
		e.TS = time.Now()
	}
	e.TS = e.TS.UTC().Truncate(time.Second)
	line, err := json.Marshal(e)
	if err != nil {
		return "", err
	}
	p := Path(dir, e.TS)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		return "", err
	}
	f, err := os.OpenFile(p, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
	if err != nil {
		return "", err
	}
	if _, err := f.Write(append(line, '\n')); err != nil {
		f.Close()
		return "", err
	}
	return p, f.Close()
}

// Filter selects events; zero fields match everything.
type Filter struct {
	Task   string
	Action string
	Since  time.Time
}

// Match applies the filter.
func (f Filter) Match(e Event) bool {
	return (f.Task == "" || e.TaskID() == f.Task) &&
		(f.Action == "" || e.Action == f.Action) &&
		(f.Since.IsZero() || !e.TS.Before(f.Since))
}

// Decode reads events from r, skipping lines that are not events (a union
// merge can in principle leave a partial line; one bad line must not hide
// the rest of the history). It returns the number of lines skipped.
func Decode(r io.Reader, f Filter) ([]Event, int, error) {
	br := bufio.NewReader(r)
	var out []Event
	bad := 0
	for {
		line, err := br.ReadBytes('\n')
		if len(bytes.TrimSpace(line)) > 0 {
			var e Event
			if json.Unmarshal(line, &e) != nil || e.Action == "" {
				bad++
			} else if f.Match(e) {
				out = append(out, e)
			}
		}
		if err == io.EOF {
			break
		}
		if err != nil {
			return out, bad, err
		}
	}
	// A union merge concatenates two machines' tails; order by time so
	// readers see one history. Stable keeps same-second events in file order.
	sort.SliceStable(out, func(i, j int) bool { return out[i].TS.Before(out[j].TS) })
	return out, bad, nil
}

// Files lists the log's files in time order: the single file of earlier
// versions first, then the day shards. A shard wholly before since's day
// is left out (since zero: none is).
func Files(dir string, since time.Time) ([]string, error) {
	var out []string
	if _, err := os.Stat(filepath.Join(dir, FileName)); err == nil {
		out = append(out, filepath.Join(dir, FileName))
	}
	first := ""
	if !since.IsZero() {
		first = since.UTC().Format("2006-01-02")
	}
	years, err := subdirs(dir)
	if err != nil {
		return nil, err
	}
	for _, y := range years {
		months, err := subdirs(filepath.Join(dir, y))
		if err != nil {
			return nil, err
		}
		for _, m := range months {
			ents, err := os.ReadDir(filepath.Join(dir, y, m))
			if err != nil {
				return nil, err
			}
			for _, e := range ents {
				day, ok := strings.CutSuffix(e.Name(), ".ndjson")
				if !ok || e.IsDir() || day < first {
					continue
				}
				out = append(out, filepath.Join(dir, y, m, e.Name()))
			}
		}
	}
	return out, nil
}

// subdirs are the sorted names of dir's directories that are all digits
// (years, months): nothing else under events/ is a shard.
func subdirs(dir string) ([]string, error) {
	ents, err := os.ReadDir(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var out []string
	for _, e := range ents {
		if e.IsDir() && strings.Trim(e.Name(), "0123456789") == "" {
			out = append(out, e.Name())
		}
	}
	sort.Strings(out)
	return out, nil
}

// Read loads the log in dir, every file of it, in time order.
func Read(dir string, f Filter) ([]Event, int, error) {
	files, err := Files(dir, f.Since)
	if err != nil {
		return nil, 0, err
	}
	var out []Event
	bad := 0
	for _, p := range files {
		fh, err := os.Open(p)
		if err != nil {
			return nil, 0, err
		}
		evs, n, err := Decode(fh, f)
		fh.Close()
		if err != nil {
			return nil, 0, err
		}
		out, bad = append(out, evs...), bad+n
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].TS.Before(out[j].TS) })
	return out, bad, nil
}

// ForTask reads the events of task id from the log's files since since's
// day, decoding only the lines that name it: a task's history costs what
// its days of the log cost, not what the whole log does.
func ForTask(dir, id string, since time.Time) ([]Event, error) {
	files, err := Files(dir, since)
	if err != nil {
		return nil, err
	}
	key := []byte(`"task":"` + id + `"`)
	var out []Event
	for _, p := range files {
		data, err := os.ReadFile(p)
		if err != nil {
			return nil, err
		}
		for _, line := range bytes.Split(data, []byte("\n")) {
			if !bytes.Contains(line, key) {
				continue
			}
			var e Event
			if json.Unmarshal(line, &e) == nil && e.TaskID() == id {
				out = append(out, e)
			}
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].TS.Before(out[j].TS) })
	return out, nil
}
