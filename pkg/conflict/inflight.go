package conflict

import (
	"sort"

	"github.com/burl-dev/burl/pkg/errs"
	"github.com/burl-dev/burl/pkg/task"
	"github.com/burl-dev/burl/pkg/workflow"
	"github.com/burl-dev/burl/pkg/workspace"
)

// InFlight lists the tasks whose work can conflict: DOING and QA tasks
// whose branch has commits past their base_sha, with the commit each
// branch is at, and local main's commit. One git process reads every tip.
func InFlight(w *workflow.Workflow) (mainSHA string, tips []Tip, err error) {
	var es []workflow.Entry
	for _, b := range []workflow.Bucket{workflow.Doing, workflow.QA} {
		good, _, err := w.InBucket(b)
		if err != nil {
			return "", nil, err
		}
		es = append(es, good...)
	}
	names := []string{w.Config.MainBranch}
	for _, e := range es {
		if b := e.Task.Branch(); b != "" {
			names = append(names, b)
		}
	}
	heads, err := workspace.Tips(w.Repo.Git, names...)
	if err != nil {
		return "", nil, err
	}
	mainSHA = heads[w.Config.MainBranch]
	if mainSHA == "" {
		return "", nil, errs.New(errs.User, "main branch %q does not exist here", w.Config.MainBranch).
			WithFix("git fetch, or set main_branch in %s", w.Rel(w.Dir)+"/config.yaml")
	}
	for _, e := range es {
		head := heads[e.Task.Branch()]
		if head == "" || head == e.Task.BaseSHA() {
			continue
		}
		tips = append(tips, Tip{ID: e.ID, Head: head})
	}
	// In ID order, whatever bucket: the report reads the same every time.
	sort.Slice(tips, func(i, j int) bool {
		a, _ := task.IDNumber(tips[i].ID)
		b, _ := task.IDNumber(tips[j].ID)
		return a < b
	})
	return mainSHA, tips, nil
}
