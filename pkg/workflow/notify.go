package workflow

import (
	"github.com/burl-dev/burl/pkg/notify"
)

// notify hands the events of a Mutate whose commit stands (and, with
// workflow_auto_push, was pushed) to config's notifiers, after the
// workflow lock is released: a slow notifier holds up no other command.
// An attempt that lost its push notifies nothing; its events were undone.
func (w *Workflow) notify() {
	evs := w.emitted
	w.emitted = nil
	if len(w.Config.Notify) == 0 || len(evs) == 0 {
		return
	}
	notify.Run(w.Config.Notify, evs, w.Repo.Root, w.LogsDir(), nil, w.Stderr)
}
