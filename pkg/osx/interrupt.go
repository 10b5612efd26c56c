package osx

import (
	"context"
	"os"
	"os/signal"
	"sync"
	"sync/atomic"
	"syscall"
	"time"
)

var (
	interruptOnce sync.Once
	interruptCtx  context.Context
	interrupted   atomic.Bool
)

// InterruptContext is canceled by the first SIGINT or SIGTERM, from the
// first call on: a verb about to run a build or verify command asks for it,
// so that Ctrl-C stops that command's process group (which the terminal's
// SIGINT never reaches: it has a group of its own) and the verb goes on to
// roll back and release its locks instead of dying holding them. A signal
// more than 3 s after the first kills the process as usual.
func InterruptContext() context.Context {
	interruptOnce.Do(func() {
		ctx, cancel := context.WithCancel(context.Background())
		ch := make(chan os.Signal, 1)
		signal.Notify(ch, os.Interrupt, syscall.SIGTERM)
		go func() {
			<-ch
			first := time.Now()
			interrupted.Store(true)
			cancel()
			// git, which ran this verb, passes the same signal on to it
			// as it exits: a second one right away is that echo, and must
			// not cut the rollback short. A later one is a person who
			// wants out now.
			for sig := range ch {
				if time.Since(first) > 3*time.Second {
					signal.Reset(os.Interrupt, syscall.SIGTERM)
					if p, err := os.FindProcess(os.Getpid()); err == nil {
						_ = p.Signal(sig)
					}
					return
				}
			}
		}()
		interruptCtx = ctx
	})
	return interruptCtx
}

// Interrupted reports whether InterruptContext saw a signal.
func Interrupted() bool { return interrupted.Load() }
