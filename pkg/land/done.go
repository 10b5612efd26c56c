package land

import (
	"github.com/burl-dev/burl/pkg/record"
	"github.com/burl-dev/burl/pkg/task"
	"github.com/burl-dev/burl/pkg/workflow"
)

// done is the moment a task lands, whichever way its work reached main:
// approve's fast-forward or the queue's (record, which --accept-landed
// and a finished interrupted approve take too) or a pull request the
// forge merged (applySettlement). It runs inside the transition that
// commits DONE: merged is the commit on main holding the work, entry the
// QA Report's account of how it got there, l what the landing record
// (DESIGN §22) says of it, written as notes on the landed commits with
// its sha256 in this transition's event.
func done(w *workflow.Workflow, tx *workflow.Tx, merged, entry string, l record.Landing) error {
	tx.Task.SetTime(task.KeyCompletedAt, tx.Now)
	tx.Task.AppendToSection("QA Report", entry)
	tx.Details["merged_sha"] = merged
	return record.Land(w, tx, l)
}

// Done is done for pkg/landsync, above this package, which records a pull
// request the forge merged (applySettlement).
func Done(w *workflow.Workflow, tx *workflow.Tx, merged, entry string, l record.Landing) error {
	return done(w, tx, merged, entry, l)
}
