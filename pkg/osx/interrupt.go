package osx

import (
	"context"
	"os"
	"os/signal"
	"sync"
	"sync/atomic"
	"syscall"
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
// roll back and release its locks instead of dying holding them. A second
// signal kills the process as usual.
func InterruptContext() context.Context {
	interruptOnce.Do(func() {
		ctx, cancel := context.WithCancel(context.Background())
		ch := make(chan os.Signal, 1)
		signal.Notify(ch, os.Interrupt, syscall.SIGTERM)
		go func() {
			<-ch
			interrupted.Store(true)
			signal.Reset(os.Interrupt, syscall.SIGTERM)
			cancel()
		}()
		interruptCtx = ctx
	})
	return interruptCtx
}

// Interrupted reports whether InterruptContext saw a signal.
func Interrupted() bool { return interrupted.Load() }
