// Package bucket holds the bucket folders of a workflow: their names, the
// task files found in them, and DONE's month shards (DESIGN §13).
package bucket

import (
	"errors"
	"io/fs"
	"os"
	"strings"

	"github.com/burl-dev/burl/pkg/task"
)

// LocksDirName, EventsDirName and LogsDirName live beside the buckets;
// locks/ and logs/ are machine-local (gitignored).
const (
	LocksDirName  = "locks"
	EventsDirName = "events"
	LogsDirName   = "logs"
	ConfigName    = "config.yaml"
)

// Bucket is a status folder.
type Bucket string

// The buckets of PRD 9.1.
const (
	Ready   Bucket = "READY"
	Doing   Bucket = "DOING"
	QA      Bucket = "QA"
	Done    Bucket = "DONE"
	Blocked Bucket = "BLOCKED"
	// Proposed holds the tasks agents propose (DESIGN §27): no agent
	// claims one until a human accepts it into READY. The folder is made
	// by the first proposal, so a workflow without one has none.
	Proposed Bucket = "PROPOSED"
)

// Buckets in lifecycle order, PROPOSED last: the five of PRD 9.1 keep
// their places in every list and column, and PROPOSED is shown where it
// holds a task (Shown).
var Buckets = []Bucket{Ready, Doing, QA, Done, Blocked, Proposed}

// Lanes are the buckets a view shows even when empty: all but PROPOSED.
var Lanes = Buckets[:5]

// ParseBucket accepts a bucket name in any case.
func ParseBucket(s string) (Bucket, bool) {
	for _, b := range Buckets {
		if strings.EqualFold(string(b), s) {
			return b, true
		}
	}
	return "", false
}

// Entry is a task file found in a bucket.
type Entry struct {
	ID     string
	Bucket Bucket
	Path   string
	Task   *task.Task // nil when Err is set
	Err    error      // the file is malformed: reported, never rewritten
}

// Names lists a bucket directory without sorting or stat-ing, the cheapest
// read the OS offers; hooks call this on every commit.
func Names(dir string) ([]string, error) {
	f, err := os.Open(dir)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, nil
		}
		return nil, err
	}
	defer f.Close()
	return f.Readdirnames(-1)
}

// CountNames is how many of the names ns are task files.
func CountNames(ns []string) int {
	n := 0
	for _, name := range ns {
		if _, ok := task.IDFromFileName(name); ok {
			n++
		}
	}
	return n
}
