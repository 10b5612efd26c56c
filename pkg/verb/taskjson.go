package verb

import (
	"github.com/burl-dev/burl/pkg/workflow"
)

// taskObject is a task as --json shows it: the frontmatter keys, plus
// bucket and path (relative to the repository root).
func taskObject(w *workflow.Workflow, e workflow.Entry) map[string]any {
	m := e.Task.Fields()
	m["bucket"] = string(e.Bucket)
	m["path"] = w.Rel(e.Path)
	return m
}
