package stack

import (
	"os"
	"time"

	"github.com/burl-dev/burl/pkg/integrate"
	"github.com/burl-dev/burl/pkg/workflow"
)

// moveRecord is a restack's record of its move of a child's branch, made
// before the move (integrate.Staging): a restack runs under the parent's
// landing, not the child's lock, while other tasks' runs may span it, and
// watch's ref check after such a run takes exactly this move as burl's.
type moveRecord struct {
	w  *workflow.Workflow
	in *integrate.Intent
}

// recordMove records that task id's branch, at head, is about to be
// restacked onto onto. A task that holds an approve's record already
// keeps it, and its move goes unrecorded.
func recordMove(w *workflow.Workflow, id, head, onto string) moveRecord {
	if integrate.ReadIntent(w.Repo.CommonDir, id) != nil {
		return moveRecord{}
	}
	in := &integrate.Intent{Task: id, Submitted: head, Base: onto, Actor: w.Actor, Host: w.Host, PID: os.Getpid(), CreatedAt: time.Now().UTC()}
	if integrate.RecordIntent(w.Repo.CommonDir, *in) != nil {
		return moveRecord{}
	}
	return moveRecord{w, in}
}

// moved names the head the branch went to.
func (r moveRecord) moved(head string) {
	if r.in != nil && head != r.in.Submitted {
		r.in.Merged = head
		_ = integrate.RecordIntent(r.w.Repo.CommonDir, *r.in)
	}
}

// drop removes the record: the restack's event names the head now, or
// the branch is back where it was.
func (r moveRecord) drop() {
	if r.in != nil {
		_ = integrate.DropIntent(r.w.Repo.CommonDir, r.in.Task)
	}
}
