package monitor

import (
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/charmbracelet/lipgloss"

	"github.com/burl-dev/burl/pkg/board"
	"github.com/burl-dev/burl/pkg/cli"
	"github.com/burl-dev/burl/pkg/events"
	"github.com/burl-dev/burl/pkg/usage"
	"github.com/burl-dev/burl/pkg/workflow"
)

// style decorates drawn text; the plain snapshot uses none, the terminal
// board lipgloss styles (colourless under NO_COLOR).
type style struct {
	head, sel, warn, dim func(string) string
}

func plain(s string) string { return s }

var plainStyle = style{plain, plain, plain, plain}

// Layout is what one frame holds besides the board: the size and the
// selected card (bucket index and position), and whether there is a
// footer of keys.
type layout struct {
	width, height int // height 0: as tall as the board needs (snapshot)
	col, row      int
	selecting     bool
	footer        string
}

// snapshotEvents is how much of the event log's tail the snapshot shows.
const snapshotEvents = 10

// doneShown caps DONE in the snapshot: the most recent ones tell what just
// happened; the full history is `git burl log`.
const doneShown = 10

// Snapshot writes the plain-text board: no escape sequence, every task
// field escaped.
func Snapshot(out io.Writer, b *board.Board, width int) {
	for _, l := range render(b, layout{width: width}, plainStyle) {
		fmt.Fprintln(out, strings.TrimRight(l, " "))
	}
}

// fit cuts s to n cells (terminal columns), marking a cut with "…", and
// pads it to n.
func fit(s string, n int) string {
	if n <= 0 {
		return ""
	}
	if w := lipgloss.Width(s); w <= n {
		return s + strings.Repeat(" ", n-w)
	}
	var b strings.Builder
	used := 0
	for _, r := range s {
		rw := lipgloss.Width(string(r))
		if used+rw > n-1 {
			break
		}
		b.WriteRune(r)
		used += rw
	}
	return b.String() + "…" + strings.Repeat(" ", n-1-used)
}

func prioLetter(p string) string {
	if p == "" {
		return "-"
	}
	return p[:1]
}

// cardLines draws a card in w cells: "ID p MARKERS" (the markers matter
// more than anything cut off at the right), the title, then its age and
// owner.
func cardLines(c board.Card, now time.Time, w int) []string {
	head := c.ID + " " + prioLetter(c.Priority)
	if m := c.Markers(); m != "" {
		head += " " + m
	}
	foot := " -"
	if !c.Since.IsZero() {
		foot = " " + board.Age(now.Sub(c.Since))
	}
	if c.Queue != "" {
		foot += " " + c.Queue
	}
	if pr := c.PR(); pr != "" && c.PRState == board.PROpen {
		// Before the cost and owner: what the task waits for (the
		// forge) matters more than what is cut off at the right.
		foot += " " + pr
	}
	if c.Usage.CostUSD > 0 {
		foot += " " + usage.Dollars(c.Usage.CostUSD)
	}
	if c.Owner != "" {
		foot += " @" + c.Owner
	}
	out := []string{fit(head, w), fit(" "+c.Title, w), fit(foot, w)}
	if c.StackedOn != "" {
		out = append(out, fit(" ↳ on "+c.StackedOn, w))
	}
	// Why a human is needed, in its summary; the task view has the rest.
	for _, l := range []struct{ label, text string }{{"blocked", c.Reason}, {"held", c.Held}, {"cancelled", c.Cancelled}} {
		if l.text != "" {
			out = append(out, fit(" "+l.label+": "+l.text, w))
		}
	}
	return out
}

// columnLines draws one bucket's column in w cells and at most h lines (h
// 0: no limit), scrolled so the selected card (sel, -1 for none) shows.
func columnLines(b *board.Board, bk workflow.Bucket, w, h, sel int, st style) []string {
	cards := b.Columns[bk]
	limit := len(cards)
	if h == 0 && bk == workflow.Done && limit > doneShown {
		limit = doneShown
	}
	var blocks [][]string
	for i := 0; i < limit; i++ {
		var ls []string
		if i == sel {
			// A bar in the text as well as the style: under NO_COLOR
			// (or a terminal without attributes) the selection still shows.
			ls = cardLines(cards[i], b.Now, w-1)
			for j := range ls {
				ls[j] = st.sel("▌" + ls[j])
			}
		} else {
			ls = cardLines(cards[i], b.Now, w)
			if m := cards[i].Markers(); m != "" && m != "W" {
				ls[0] = st.warn(ls[0])
			}
		}
		blocks = append(blocks, ls)
	}
	first := 0
	if h > 0 && sel >= 0 {
		// Scroll down until the selected card and the "more" line fit.
		for first < sel && height(blocks[first:sel+1])+1 > h {
			first++
		}
	}
	var out []string
	if first > 0 {
		out = append(out, st.dim(fit(fmt.Sprintf("↑ %d more", first), w)))
	}
	for i := first; i < len(blocks); i++ {
		rest := len(cards) - i - 1
		need := len(blocks[i])
		if rest > 0 {
			need++
		}
		if h > 0 && len(out)+need > h {
			out = append(out, st.dim(fit(fmt.Sprintf("↓ %d more", len(cards)-i), w)))
			return out
		}
		out = append(out, blocks[i]...)
	}
	if limit < len(cards) {
		out = append(out, st.dim(fit(fmt.Sprintf("… %d older", len(cards)-limit), w)))
	}
	return out
}

func height(blocks [][]string) int {
	n := 0
	for _, b := range blocks {
		n += len(b)
	}
	return n
}

func eventLine(e events.Event) string {
	return e.TS.UTC().Format("15:04:05") + " " + board.EventText(e)
}

func runLine(r board.Run, now time.Time) string {
	s := fmt.Sprintf("%s %s#%d %s", r.Task, r.Agent, r.Attempt, board.Age(now.Sub(r.Since)))
	if r.LastLine != "" {
		s += "  " + r.LastLine
	}
	return cli.Escape(s)
}

// lostLine is a lost run: how long it ran, then why it is lost and what
// to do, before anything cut off at the right.
func lostLine(r board.Run) string {
	s := fmt.Sprintf("%s %s#%d LOST after %s: %s", r.Task, r.Agent, r.Attempt, board.Age(r.Until.Sub(r.Since)), r.Lost)
	if r.Next.Command != "" {
		s += " · next: " + r.Next.Command
	}
	return cli.Escape(s)
}

// render draws a frame as lines of exactly l.width cells (before styling).
func render(b *board.Board, l layout, st style) []string {
	w := l.width
	if w < 40 {
		w = 40
	}
	n := len(b.Lanes())
	colW := (w - (n - 1)) / n
	title := fmt.Sprintf("burl monitor · %d tasks · %d running", b.Total(), len(b.Runs))
	if len(b.Lost) > 0 {
		title += fmt.Sprintf(" · %d lost", len(b.Lost))
	}
	title += " · " + b.Now.UTC().Format("2006-01-02 15:04:05 UTC")
	if b.Cancelled > 0 {
		title += fmt.Sprintf(" · DONE %d landed, %d cancelled", b.Done-b.Cancelled, b.Cancelled)
	}
	if b.Malformed > 0 {
		title += fmt.Sprintf(" · %d malformed (git burl status)", b.Malformed)
	}
	out := []string{st.head(fit(title, w))}
	var heads []string
	for _, bk := range b.Lanes() {
		heads = append(heads, st.head(fit(fmt.Sprintf("%s %d", bk, b.Count(bk)), colW)))
	}
	out = append(out, strings.Join(heads, " "))

	runRows := len(b.Runs) + len(b.Lost)
	if runRows == 0 {
		runRows = 1
	}
	evRows := snapshotEvents
	boardH := 0
	if l.height > 0 {
		if runRows > 4 {
			runRows = 4
		}
		evRows = l.height / 5
		if evRows < 3 {
			evRows = 3
		}
		footer := 0
		if l.footer != "" {
			footer = 1
		}
		boardH = l.height - len(out) - (1 + runRows) - (1 + evRows) - footer
		if boardH < 4 {
			boardH = 4
		}
	}
	cols := make([][]string, n)
	rows := 0
	for i, bk := range b.Lanes() {
		sel := -1
		if l.selecting && i == l.col {
			sel = l.row
		}
		cols[i] = columnLines(b, bk, colW, boardH, sel, st)
		if len(cols[i]) > rows {
			rows = len(cols[i])
		}
	}
	if boardH > 0 {
		rows = boardH
	}
	blank := strings.Repeat(" ", colW)
	for r := 0; r < rows; r++ {
		var cells []string
		for i := range cols {
			if r < len(cols[i]) {
				cells = append(cells, cols[i][r])
			} else {
				cells = append(cells, blank)
			}
		}
		out = append(out, strings.Join(cells, " "))
	}

	head := fmt.Sprintf("RUNNING %d", len(b.Runs))
	if len(b.Lost) > 0 {
		head += fmt.Sprintf(" · LOST %d", len(b.Lost))
	}
	out = append(out, st.head(fit(head, w)))
	if len(b.Runs)+len(b.Lost) == 0 {
		out = append(out, st.dim(fit("  no agent is running (git burl watch)", w)))
	}
	// Lost runs first: they are what needs a human.
	shown := 0
	for _, r := range b.Lost {
		if l.height > 0 && shown >= runRows {
			break
		}
		out = append(out, st.warn(fit("  "+lostLine(r), w)))
		shown++
	}
	for _, r := range b.Runs {
		if l.height > 0 && shown >= runRows {
			break
		}
		out = append(out, fit("  "+runLine(r, b.Now), w))
		shown++
	}
	out = append(out, st.head(fit("EVENTS", w)))
	tail := b.Tail
	if len(tail) > evRows {
		tail = tail[len(tail)-evRows:]
	}
	for _, e := range tail {
		out = append(out, fit("  "+eventLine(e), w))
	}
	if l.height > 0 {
		for len(out) < l.height-1 {
			out = append(out, strings.Repeat(" ", w))
		}
	}
	if l.footer != "" {
		out = append(out, st.dim(fit(l.footer, w)))
	}
	if l.height > 0 && len(out) > l.height {
		// Too small a terminal: the keys stay on the last line.
		last := out[len(out)-1]
		out = append(out[:l.height-1], last)
	}
	return out
}
