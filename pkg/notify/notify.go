// Package notify runs the notify commands of config.yaml (DESIGN §18): each
// gets one event, as the event log holds it, on stdin. A notifier is a side
// channel: one that fails or hangs is logged and killed, and never fails
// the transition that made the event.
package notify

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"time"

	"github.com/burl-dev/burl/pkg/config"
	"github.com/burl-dev/burl/pkg/events"
	"github.com/burl-dev/burl/pkg/osx"
)

// Timeout is how long a notifier may run before its process group is killed.
var Timeout = 10 * time.Second

// LogName is the file, in the workflow's logs directory, that keeps every
// notifier's output and outcome.
const LogName = "notify.log"

// Run sends each event to the notifiers listening for its action, one
// after the other, in dir. allowed says whether a notifier's command may
// run (the trust check); a refused one is reported once per call. Problems
// go to warn and the log; Run itself never fails.
func Run(ns []config.Notifier, evs []events.Event, dir, logsDir string, allowed func(int, config.Notifier) error, warn io.Writer) {
	if len(ns) == 0 || len(evs) == 0 {
		return
	}
	refused := map[int]bool{}
	for _, e := range evs {
		for i, n := range ns {
			if !listens(n, e.Action) || refused[i] {
				continue
			}
			if allowed != nil {
				if err := allowed(i, n); err != nil {
					refused[i] = true
					fmt.Fprintf(warn, "burl: warning: notify command %q not run: %v\n", n.Command[0], err)
					continue
				}
			}
			if err := send(n, e, dir, logsDir); err != nil {
				fmt.Fprintf(warn, "burl: warning: notify command %q for %s: %v (see %s)\n", n.Command[0], e.Action, err, filepath.Join(logsDir, LogName))
			}
		}
	}
}

func listens(n config.Notifier, action string) bool {
	for _, a := range n.On {
		if a == action || a == "*" {
			return true
		}
	}
	return false
}

var errTimeout = errors.New("killed after the timeout")

func send(n config.Notifier, e events.Event, dir, logsDir string) error {
	line, err := json.Marshal(e)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(logsDir, 0o755); err != nil {
		return err
	}
	log, err := os.OpenFile(filepath.Join(logsDir, LogName), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return err
	}
	defer log.Close()
	began := time.Now()
	fmt.Fprintf(log, "%s %s %s: %q\n", began.UTC().Format(time.RFC3339), e.Action, e.TaskID(), n.Command)
	cmd := exec.Command(n.Command[0], n.Command[1:]...)
	cmd.Dir = dir
	cmd.Stdin = bytes.NewReader(append(line, '\n'))
	cmd.Stdout, cmd.Stderr = log, log
	cmd.Env = append(os.Environ(), "BURL_EVENT_ACTION="+e.Action, "BURL_TASK="+e.TaskID())
	osx.SetProcessGroup(cmd)
	if err := cmd.Start(); err != nil {
		fmt.Fprintf(log, "  cannot start: %v\n", err)
		return err
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	t := time.NewTimer(Timeout)
	defer t.Stop()
	select {
	case err = <-done:
	case <-t.C:
		_ = osx.KillProcessGroup(cmd)
		<-done
		err = errTimeout
	}
	// The group goes either way: a notifier's background child must not
	// outlive the verb that ran it.
	_ = osx.KillProcessGroup(cmd)
	fmt.Fprintf(log, "  %s after %d ms\n", outcome(err), time.Since(began).Milliseconds())
	return err
}

func outcome(err error) string {
	if err == nil {
		return "ok"
	}
	return err.Error()
}
