// Package events is the append-only NDJSON event log (PRD 15):
// .workflow/events/events.ndjson, committed with the workflow so history
// travels between machines, merged by union when two machines append.
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
	"time"
)

// FileName is the log inside the events directory.
const FileName = "events.ndjson"

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

// Append writes one event as a single write(2) on an O_APPEND file, so
// concurrent appenders never interleave within a line.
func Append(dir string, e Event) error {
	if e.TS.IsZero() {
		e.TS = time.Now()
	}
	e.TS = e.TS.UTC().Truncate(time.Second)
	line, err := json.Marshal(e)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	f, err := os.OpenFile(filepath.Join(dir, FileName), os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
	if err != nil {
		return err
	}
	if _, err := f.Write(append(line, '\n')); err != nil {
		f.Close()
		return err
	}
	return f.Close()
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

// Read loads the log in dir.
func Read(dir string, f Filter) ([]Event, int, error) {
	fh, err := os.Open(filepath.Join(dir, FileName))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, 0, nil
	}
	if err != nil {
		return nil, 0, err
	}
	defer fh.Close()
	return Decode(fh, f)
}
