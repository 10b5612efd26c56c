package workflow

import (
	"encoding/json"

	"github.com/burl-dev/burl/pkg/statuscache"
	"github.com/burl-dev/burl/pkg/task"
)

// What status reads of the task files is package statuscache's; these
// names keep the callers of the workflow's as they were.

// Summary is what `status` needs of one task file.
type Summary = statuscache.Summary

// SummaryKeys are the keys status adds to each task object.
var SummaryKeys = statuscache.SummaryKeys

// StatusCacheName and DoneCountCacheName are the cache files in the logs
// directory.
const (
	StatusCacheName    = statuscache.StatusCacheName
	DoneCountCacheName = statuscache.DoneCountCacheName
)

// LastGateFailed reports whether a task's QA report ends in a failed
// validate or approve.
func LastGateFailed(t *task.Task) bool { return statuscache.LastGateFailed(t) }

// statusCache reads the workflow's task files through the caches in its
// logs directory.
func (w *Workflow) statusCache() *statuscache.Cache {
	return &statuscache.Cache{Layout: w.layout(), Logs: w.LogsDir(), Read: w.Read}
}

// Summaries is Scan for status (statuscache.Cache.Summaries).
func (w *Workflow) Summaries(withFields, withDone bool) ([]Summary, error) {
	return w.statusCache().Summaries(withFields, withDone)
}

// SummariesLazy is Summaries with fields left in the cache until FieldsOf.
func (w *Workflow) SummariesLazy(withDone bool) ([]Summary, error) {
	return w.statusCache().SummariesLazy(withDone)
}

// FieldsOf is s.Fields, read from where SummariesLazy left it.
func (w *Workflow) FieldsOf(s *Summary) json.RawMessage { return w.statusCache().FieldsOf(s) }

// RecentDone is Summaries of DONE's newest month shards, as many as hold
// at least min tasks.
func (w *Workflow) RecentDone(min int, withFields bool) ([]Summary, error) {
	return w.statusCache().RecentDone(min, withFields)
}

// DoneCounts is how many tasks DONE holds, and how many of them were
// cancelled.
func (w *Workflow) DoneCounts() (n, cancelled int, err error) { return w.statusCache().DoneCounts() }

func (w *Workflow) countDone() (int, error) { return w.statusCache().CountDone() }
