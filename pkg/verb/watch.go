package verb

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/signal"
	"runtime"
	"sort"
	"strings"
	"syscall"
	"time"

	"github.com/burl-dev/burl/pkg/agentbox"
	"github.com/burl-dev/burl/pkg/cli"
	"github.com/burl-dev/burl/pkg/errs"
	"github.com/burl-dev/burl/pkg/osx"
	"github.com/burl-dev/burl/pkg/watch"
)

// Watch is `git burl watch`: what cmd/git-burl-watch runs.
func Watch() cli.Command { return &watchCmd{} }

type watchCmd struct {
	cli.JSONFlag
	Once     bool   `long:"once" description:"Exit once nothing is claimable, nothing runs and the approve queue is empty"`
	Interval string `long:"interval" value-name:"DURATION" default:"2s" description:"How often to look for work (and fetch, with workflow_auto_push)"`
	PrintCmd string `long:"print-command" value-name:"AGENT" description:"Print the command line watch runs for AGENT (a preset expanded, placeholders kept) and exit"`
}

// printCmdOut is --print-command's answer.
type printCmdOut struct{ *agentbox.AgentCommand }

func (o printCmdOut) Human(w io.Writer) {
	fmt.Fprintln(w, agentbox.ShellLine(o.Command))
	keys := make([]string, 0, len(o.Env))
	for k := range o.Env {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		fmt.Fprintf(w, "  env %s=%s\n", k, agentbox.ShellLine([]string{o.Env[k]}))
	}
}

// watchOut is the summary; its JSON is the Summary itself, ok included.
type watchOut struct {
	sum  *watch.Summary
	code int
}

func (o watchOut) ExitCode() int { return o.code }

func (o watchOut) MarshalJSON() ([]byte, error) { return json.Marshal(o.sum) }

func (o watchOut) Human(w io.Writer) {
	s := o.sum
	fmt.Fprintf(w, "watch: %d run(s); DONE %d, BLOCKED %d, rejected %d\n", len(s.Runs), len(s.Done), len(s.Blocked), len(s.Rejected))
	for _, id := range s.Blocked {
		fmt.Fprintf(w, "  BLOCKED %s (git burl show %s says why)\n", id, id)
	}
	for _, id := range s.Rejected {
		fmt.Fprintf(w, "  rejected %s (back in READY with the reason)\n", id)
	}
	if s.Halted != "" {
		fmt.Fprintf(w, "  ran nothing at the end: %s\n", s.Halted)
	}
	for _, c := range s.CannotStart {
		left := ""
		if len(c.Tasks) > 0 {
			left = "; left in READY for it: " + strings.Join(c.Tasks, ", ")
		}
		fmt.Fprintf(w, "  agent %s could not start (%s): nothing was claimed for it%s\n", c.Agent, c.Program, left)
	}
}

func (c *watchCmd) Run(ctx *cli.Context, args []string) (cli.Output, error) {
	if len(args) != 0 {
		return nil, usageErr("watch", "takes no arguments")
	}
	if c.PrintCmd != "" {
		ac, err := agentbox.PrintCommand(ctx.Dir, c.PrintCmd)
		if err != nil {
			return nil, err
		}
		return printCmdOut{ac}, nil
	}
	every, err := time.ParseDuration(c.Interval)
	if err != nil || every <= 0 {
		return nil, errs.New(errs.User, "--interval %q is not a positive duration", c.Interval).WithFix("git burl watch --interval 5s")
	}
	stop := make(chan struct{})
	sigs := make(chan os.Signal, 2)
	signal.Notify(sigs, syscall.SIGINT, syscall.SIGTERM)
	defer signal.Stop(sigs)
	// A reader of our output that died (Ctrl-C on `watch | tee`) must not
	// kill us on our next write before we released our tasks: with SIGPIPE
	// caught, such writes fail (EPIPE) and watch goes on to release. Caught,
	// not ignored, so that agents still start with the default.
	signal.Notify(make(chan os.Signal, 1), syscall.SIGPIPE)
	// DESIGN §16: orphans of agent runs stay ours to end, and the
	// supervisor stops (releasing its tasks) when whoever started it dies,
	// even by SIGKILL. The main thread stays locked: Linux ties the parent
	// death signal to the thread that asked for it.
	runtime.LockOSThread()
	osx.CloseOnExecInherited()
	if err := osx.BecomeSubreaper(); err != nil {
		fmt.Fprintf(ctx.Stderr, "watch: warning: cannot become a child subreaper (%v): daemons an agent starts may outlive its run\n", err)
	}
	if err := osx.DieWithParent(syscall.SIGTERM); err != nil {
		fmt.Fprintf(ctx.Stderr, "watch: warning: cannot ask to be stopped with the process that started it (%v)\n", err)
	}
	var got os.Signal
	go func() {
		if s, ok := <-sigs; ok {
			got = s
			close(stop)
		}
	}()
	sum, err := watch.Watch(watch.Options{Dir: ctx.Dir, Once: c.Once, Interval: every, Stderr: ctx.Stderr, Stop: stop})
	if err != nil {
		return nil, err
	}
	code := 0
	switch {
	case sum.Stopped:
		// The shell's convention for "ended by this signal".
		code = 128 + int(got.(syscall.Signal))
	case !sum.OK:
		code = int(errs.Validation)
	}
	return watchOut{sum: sum, code: code}, nil
}
