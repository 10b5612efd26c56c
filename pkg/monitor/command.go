// Package monitor is `git burl monitor`: a board of the workflow read from
// the task files, the locks and the event log (nothing is kept besides
// them), drawn live on a terminal, as a plain-text snapshot, or as one
// self-contained HTML page. It is the only package that links the TUI
// library, and only cmd/git-burl-monitor imports it.
package monitor

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"strconv"
	"time"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/burl-dev/burl/pkg/board"
	"github.com/burl-dev/burl/pkg/cli"
	"github.com/burl-dev/burl/pkg/errs"
	"github.com/burl-dev/burl/pkg/events"
	"github.com/burl-dev/burl/pkg/fsx"
	"github.com/burl-dev/burl/pkg/htmlreport"
	"github.com/burl-dev/burl/pkg/stats"
	"github.com/burl-dev/burl/pkg/workflow"
)

// Command is `git burl monitor`: what cmd/git-burl-monitor runs.
func Command() cli.Command { return &command{} }

type command struct {
	Once bool   `long:"once" description:"Print one plain-text snapshot of the board and exit (the default when stdout is not a terminal)"`
	HTML string `long:"html" value-name:"FILE" description:"Write a self-contained HTML report (board, timeline, dependency graph, throughput) to FILE and exit"`
}

// snapshotWidth is the snapshot's width when COLUMNS does not say.
const snapshotWidth = 100

type snapshotOut struct {
	b     *board.Board
	width int
}

func (o snapshotOut) Human(w io.Writer) { Snapshot(w, o.b, o.width) }

type htmlOut struct{ path string }

func (o htmlOut) Human(w io.Writer) { fmt.Fprintf(w, "wrote %s\n", o.path) }

func (c *command) Run(ctx *cli.Context, args []string) (cli.Output, error) {
	if len(args) > 0 {
		return nil, errs.New(errs.User, "monitor takes no arguments").WithFix("git burl monitor [--once] [--html FILE]")
	}
	w, err := workflow.Open(ctx.Dir)
	if err != nil {
		return nil, err
	}
	w.Stderr = ctx.Stderr
	if c.HTML != "" {
		evs, _, err := events.Read(w.EventsDir(), events.Filter{})
		if err != nil {
			return nil, err
		}
		b, err := board.Load(w, time.Now(), evs, true)
		if err != nil {
			return nil, err
		}
		st, err := stats.Compute(w.EventsDir(), stats.Options{By: stats.ByAgent})
		if err != nil {
			return nil, err
		}
		var buf bytes.Buffer
		if err := htmlreport.WriteReport(&buf, b, evs, &st); err != nil {
			return nil, err
		}
		// fsx: replaced atomically, with the mode a new file gets (0666
		// under the umask), not a temp file's 0600: a report is shared.
		if err := fsx.WriteFile(c.HTML, buf.Bytes()); err != nil {
			return nil, errs.New(errs.User, "cannot write %s: %v", c.HTML, err)
		}
		return htmlOut{c.HTML}, nil
	}
	load := func() (*board.Board, error) {
		now := time.Now()
		evs, _, err := events.Read(w.EventsDir(), events.Filter{Since: now.Add(-board.Recent)})
		if err != nil {
			return nil, err
		}
		return board.Load(w, now, evs, false)
	}
	if c.Once || !terminal(ctx.Stdout) || !terminal(os.Stdin) {
		b, err := load()
		if err != nil {
			return nil, err
		}
		width := snapshotWidth
		if n, err := strconv.Atoi(os.Getenv("COLUMNS")); err == nil && n >= 40 {
			width = n
		}
		return snapshotOut{b, width}, nil
	}
	return nil, live(w, load)
}

// live runs the full-screen board until q.
func live(w *workflow.Workflow, load func() (*board.Board, error)) error {
	x := NewWatcher(w)
	defer x.Stop()
	m := NewModel(func() (*board.Board, error) {
		b, err := load()
		if err == nil {
			x.Logs(b.RunningLogs)
		}
		return b, err
	}, x.C, os.Getenv("NO_COLOR") == "")
	m.acts.dir = w.Repo.Root
	// A low frame rate: bubbletea's renderer wakes at every frame even
	// when nothing changed, and the board changes at most a few times a
	// second.
	p := tea.NewProgram(m, tea.WithAltScreen(), tea.WithFPS(5))
	if _, err := p.Run(); err != nil {
		return errs.New(errs.User, "monitor: %v", err)
	}
	return nil
}

func terminal(f any) bool {
	file, ok := f.(*os.File)
	if !ok {
		return false
	}
	st, err := file.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}
