package workflow

import (
	"errors"

	"github.com/burl-dev/burl/pkg/config"
	"github.com/burl-dev/burl/pkg/notify"
)

// NotifierTrusted says whether a notify command may run here (DESIGN §16:
// it is a command from the workflow branch). pkg/trust sets it; a binary
// without the trust store runs no notifier.
var NotifierTrusted func(w *Workflow, i int, n config.Notifier) error

var errNoTrustStore = errors.New("this command cannot check the trust store")

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
	allowed := func(i int, n config.Notifier) error {
		if NotifierTrusted == nil {
			return errNoTrustStore
		}
		return NotifierTrusted(w, i, n)
	}
	notify.Run(w.Config.Notify, evs, w.Repo.Root, w.LogsDir(), allowed, w.Stderr)
}
