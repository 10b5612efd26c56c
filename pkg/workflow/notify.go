package workflow

import (
	"errors"

	"github.com/burl-dev/burl/pkg/config"
	"github.com/burl-dev/burl/pkg/notify"
	"github.com/burl-dev/burl/pkg/trust"
)

var errNotTrusted = errors.New("not trusted on this machine (git burl trust shows it and asks)")

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
	// A notifier is a command from the workflow branch: it runs only
	// once trusted here (DESIGN §16), else it is skipped with a warning.
	// The warning is one line; git burl trust shows the whole story.
	allowed := func(_ int, n config.Notifier) error {
		ps, err := trust.Untrusted(w.Repo, w.notifyCommand(n.Command)...)
		if err == nil && len(ps) > 0 {
			err = errNotTrusted
		}
		return err
	}
	notify.Run(w.Config.Notify, evs, w.Repo.Root, w.LogsDir(), allowed, w.Stderr)
}
