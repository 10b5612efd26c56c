package mcp

import (
	"context"
	"math"
	"os"
	"os/signal"
	"path/filepath"
	"runtime/debug"
	"syscall"

	"github.com/burl-dev/burl/pkg/cli"
	"github.com/burl-dev/burl/pkg/errs"
)

// Command is `git burl mcp`: what cmd/git-burl-mcp runs.
func Command() cli.Command { return &command{} }

type command struct {
	Dir string `long:"dir" value-name:"DIR" description:"Act in DIR when a call names no cwd, rather than in the client's roots (watch's presets pass the task's worktree)"`
}

func (c *command) Run(ctx *cli.Context, args []string) (cli.Output, error) {
	if len(args) != 0 {
		return nil, cli.UsageError("mcp", "takes no arguments")
	}
	o := Options{Dir: c.Dir}
	if o.Dir != "" {
		if !filepath.IsAbs(o.Dir) {
			o.Dir = filepath.Join(ctx.Dir, o.Dir)
		}
		if st, err := os.Stat(o.Dir); err != nil || !st.IsDir() {
			return nil, errs.New(errs.User, "--dir %s is not a directory", c.Dir).
				WithFix("give the repository's or a task worktree's path, e.g. git burl mcp --dir \"$(git rev-parse --show-toplevel)\"")
		}
	}
	// A server lives long and answers documents of megabytes (status
	// --json at 10,000 tasks is 6 MB): the soft memory limit cli.Main sets
	// for short commands would keep its collector running throughout.
	if os.Getenv("GOMEMLIMIT") == "" {
		debug.SetMemoryLimit(math.MaxInt64)
	}
	// SIGINT and SIGTERM stop reading requests; a call under way ends
	// first (Serve), so that a stopped client's server leaves no half
	// transition behind.
	sig, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	// A client that went away leaves a broken stdout: the answer's write
	// fails (EPIPE) instead of killing the server.
	signal.Notify(make(chan os.Signal, 1), syscall.SIGPIPE)
	return nil, Serve(sig, Stdio(ctx.Stdin, ctx.Stdout), o)
}
